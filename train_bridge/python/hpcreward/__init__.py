"""hpcreward: the trainer side of a served hpcreward pipeline (standard library only).

Client scores candidates over HTTP; hpcreward.trl, hpcreward.verl and hpcreward.openrlhf_reward
adapt it to those trainers; hpcreward.replay sends a JSON Lines file. See train_bridge/python/README.md.
"""
from .batch import BatchHandle
from .candidates import PROBLEMS, STATUSES, new_batch_id
from .client import Client
from .errors import (AuthError, BatchFailed, BatchTimeout, ConflictError, HpcrewardError, ProtocolError, RequestError,
                     TlsError, UnavailableError)
from .rendezvous import read_rendezvous

__all__ = ["AuthError", "BatchFailed", "BatchHandle", "BatchTimeout", "Client", "ConflictError", "HpcrewardError", "PROBLEMS",
           "ProtocolError", "RequestError", "STATUSES", "TlsError", "UnavailableError", "new_batch_id", "read_rendezvous"]
