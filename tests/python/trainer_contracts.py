#!/usr/bin/env python3
"""What the READMEs tell a user to write for TRL, verl and OpenRLHF, checked against the releases.

CONTRACTS below is the one list of every key, flag, manager name and call site that the docs
(docs/guide.md, train_bridge/python/README.md, tests/integration/README.md) rely on, each with the
release it holds in and where in that release's wheel it is read. Two checks use it:

  * docs_items() parses the docs' command blocks (```sh blocks running verl.trainer.main_ppo or
    openrlhf.cli.train_ppo_ray) and every override, flag and reward manager name there must be in
    CONTRACTS (tests/python/test_trainer_contracts.py, offline, in ctest python_client);
  * check_release() reads a release's wheel (a zip: its Python sources and Hydra YAML, never
    imported, so none of the trainers' dependencies are needed) and reports every contract that
    no longer holds, naming the documented key (ctest python_trainer_contracts, this file's main).

    trainer_contracts.py --cache DIR        fetch the pinned wheels into DIR once, then check
    trainer_contracts.py --wheel-dir DIR    check wheels already in DIR, fetch nothing

The wheels are fetched with `pip download --no-deps --only-binary=:all:` (openrlhf is a cp311
manylinux wheel, so the platform and Python are pinned too); a wheel already in DIR is not fetched
again. Exit 0: every contract holds; 1: some do not (each failure names the release, the
documented key and what is missing); 77 (skipped): a pinned wheel is not in DIR and cannot be
downloaded (no network, no PyPI), with pip's reason.
"""
import argparse
import os
import pathlib
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass

REPO = pathlib.Path(__file__).resolve().parents[2]
DOCS = ["docs/guide.md", "train_bridge/python/README.md", "tests/integration/README.md"]
SKIP = 77

# The pinned releases: the newest on PyPI when the docs were checked, and verl 0.7.0, the last
# release with the older keys (the docs show both, with the boundary).
RELEASES = ["trl==1.16.0", "verl==0.9.1", "verl==0.7.0", "openrlhf==0.11.2"]
DOWNLOAD_OPTIONS = ["--no-deps", "--only-binary=:all:", "--platform", "manylinux1_x86_64", "--platform", "any",
                    "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311", "--abi", "none"]

VERL_CONFIG = "verl/trainer/config/_generated_ppo_trainer.yaml"  # the composed default config of main_ppo
VERL_REWARD = "verl/trainer/ppo/reward.py"
VERL_LOOP = "verl/experimental/reward_loop/reward_manager/"
VERL_LIMITED = VERL_LOOP + "limited.py"
VERL_NAIVE = VERL_LOOP + "naive.py"
VERL_LEGACY = "verl/workers/reward_manager/"
VERL_MAIN = "verl/trainer/main_ppo.py"
VERL_DATASET = "verl/utils/dataset/rl_dataset.py"
VERL_RAY_TRAINER = "verl/trainer/ppo/ray_trainer.py"
OPENRLHF_CLI = "openrlhf/cli/train_ppo_ray.py"
OPENRLHF_AGENT = "openrlhf/utils/agent.py"
TRL_GRPO = "trl/trainer/grpo_trainer.py"

# Called as NaiveRewardManager.run_single / RateLimitedRewardManager._compute_reward call it.
VERL_CALL = ("self.compute_score( data_source=data_source, solution_str=response_str, ground_truth=ground_truth, "
             "extra_info=extra_info,")
VERL_LIMITED_CALL = ("self.compute_score( data_source=data_source, solution_str=solution_str, "
                     "ground_truth=ground_truth, extra_info=extra_info,")


@dataclass(frozen=True)
class Contract:
    """doc: as the docs write it ('reward.num_workers', '+reward.timeout', '--data.label_key',
    'manager:rate_limited', or a name for a call site). kind:
      hydra_key   the key is in the release's composed config (VERL_CONFIG)
      hydra_new   the key is NOT there (so the docs write +key=...; Hydra refuses + on an existing key)
      flag        OpenRLHF's parser has add_argument("<doc>"
      source      only the `reads` below
    reads: (file in the wheel, text) pairs that must all be in the file (whitespace-insensitive):
    the code that reads the key, registers the manager or makes the call the adapter relies on."""
    release: str
    doc: str
    kind: str
    reads: tuple = ()
    why: str = ""


def _reads(*pairs):
    return tuple(pairs)


CONTRACTS = [
    # -- verl 0.9.1: the reward loop, keys under reward.* (main_ppo does not migrate legacy keys) --
    # hpcreward.verl_data.LivePromptDataset: data.custom_cls loads it; it extends RLHFDataset.__getitem__.
    Contract("verl==0.9.1", "data.custom_cls.path", "hydra_key",
             _reads((VERL_DATASET, "dataset_cls = load_extern_object(data_config.custom_cls.path, data_config.custom_cls.name)"),
                    (VERL_DATASET, 'row_dict["raw_prompt"] = self._build_messages(row_dict, key=self.prompt_key)'),
                    (VERL_DATASET, 'row_dict["extra_info"] = dict()'))),
    Contract("verl==0.9.1", "data.custom_cls.name", "hydra_key"),
    Contract("verl==0.9.1", "data.dataloader_num_workers", "hydra_key",
             _reads((VERL_RAY_TRAINER, 'num_workers = self.config.data["dataloader_num_workers"]'))),
    Contract("verl==0.9.1", "data.max_prompt_length", "hydra_key"),
    Contract("verl==0.9.1", "reward.custom_reward_function.path", "hydra_key",
             _reads((VERL_REWARD, 'reward_fn_config = config.reward.get("custom_reward_function") or {}'),
                    (VERL_REWARD, 'module_path = reward_fn_config.get("path")')),
             "get_custom_reward_fn reads reward.custom_reward_function (top-level custom_reward_function is ignored)"),
    Contract("verl==0.9.1", "reward.custom_reward_function.name", "hydra_key",
             _reads((VERL_REWARD, 'fn_name = reward_fn_config.get("name")'))),
    Contract("verl==0.9.1", "reward.reward_manager.name", "hydra_key",
             _reads((VERL_REWARD, "get_reward_manager_cls(reward_manager_cfg.name)"))),
    Contract("verl==0.9.1", "reward.num_workers", "hydra_key",
             _reads(("verl/experimental/reward_loop/reward_loop.py", "num_workers = self.config.reward.num_workers"))),
    Contract("verl==0.9.1", "+reward.timeout", "hydra_new",
             _reads((VERL_LIMITED, 'self.timeout = config.reward.get("timeout", 300.0)'),
                    (VERL_LIMITED, "asyncio.wait_for(")),
             "rate_limited cuts a call after reward.timeout (default 300 s) and scores it 0.0"),
    Contract("verl==0.9.1", "+reward.max_concurrent", "hydra_new",
             _reads((VERL_LIMITED, 'rm_cfg = config.get("reward") or {}'),
                    (VERL_LIMITED, 'cls._max_concurrent = rm_cfg.get("max_concurrent", 1)')),
             "rate_limited lets max_concurrent calls (default 1) run at once per process"),
    Contract("verl==0.9.1", "+ray_kwargs.ray_init.runtime_env.env_vars.*", "hydra_new",
             _reads((VERL_MAIN, 'runtime_env_kwargs = ray_init_kwargs.get("runtime_env", {})'))),
    Contract("verl==0.9.1", "manager:naive", "source", _reads((VERL_NAIVE, '@register("naive")'))),
    Contract("verl==0.9.1", "manager:rate_limited", "source", _reads((VERL_LIMITED, '@register_manager("rate_limited")'))),
    Contract("verl==0.9.1", "manager:remote", "source",
             _reads((VERL_LOOP + "remote.py", '@register("remote")'),
                    (VERL_LOOP + "remote.py", "Async reward score is not supported in remote reward manager"))),
    Contract("verl==0.9.1", "call:compute_score(data_source=, solution_str=, ground_truth=, extra_info=)", "source",
             _reads((VERL_NAIVE, "self.is_async_reward_score = inspect.iscoroutinefunction(self.compute_score)"),
                    (VERL_NAIVE, "result = await " + VERL_CALL),
                    (VERL_NAIVE, 'if isinstance(result, dict): score = result["score"]'),
                    (VERL_LIMITED, "return await " + VERL_LIMITED_CALL),
                    (VERL_REWARD, "return partial(_call_with_kwargs_async, raw_fn, reward_kwargs)"))),
    Contract("verl==0.9.1", "load:pkg://", "source",
             _reads(("verl/utils/import_utils.py", "if module_path.startswith(PKG_PATH_PREFIX):"))),
    # -- verl 0.7.0: the older keys (reward_model.*, top-level custom_reward_function) -------------
    Contract("verl==0.7.0", "custom_reward_function.path", "hydra_key",
             _reads((VERL_REWARD, 'reward_fn_config = config.get("custom_reward_function") or {}'))),
    Contract("verl==0.7.0", "custom_reward_function.name", "hydra_key",
             _reads((VERL_REWARD, 'fn_name = reward_fn_config.get("name")'))),
    Contract("verl==0.7.0", "reward_model.reward_manager", "hydra_key"),
    Contract("verl==0.7.0", "reward_model.use_reward_loop", "hydra_key"),
    Contract("verl==0.7.0", "reward_model.num_workers", "hydra_key"),
    Contract("verl==0.7.0", "+reward_model.timeout", "hydra_new",
             _reads((VERL_LIMITED, 'self.timeout = config.reward_model.get("timeout", 300.0)'))),
    Contract("verl==0.7.0", "+reward_model.max_concurrent", "hydra_new",
             _reads((VERL_LIMITED, 'rm_cfg = config.get("reward_model") or {}'),
                    (VERL_LIMITED, 'cls._max_concurrent = rm_cfg.get("max_concurrent", 1)'))),
    Contract("verl==0.7.0", "+ray_kwargs.ray_init.runtime_env.env_vars.*", "hydra_new",
             _reads((VERL_MAIN, 'runtime_env_kwargs = ray_init_kwargs.get("runtime_env", {})'))),
    Contract("verl==0.7.0", "manager:naive", "source", _reads((VERL_NAIVE, '@register("naive")'))),
    Contract("verl==0.7.0", "manager:rate_limited", "source", _reads((VERL_LIMITED, '@register_manager("rate_limited")'))),
    Contract("verl==0.7.0", "manager:batch", "source", _reads((VERL_LEGACY + "batch.py", '@register("batch")'))),
    Contract("verl==0.7.0", "manager:prime", "source",
             _reads((VERL_LEGACY + "prime.py", '@register("prime")'), (VERL_LEGACY + "prime.py", "timeout=300.0"))),
    Contract("verl==0.7.0", "call:compute_score(data_source=, solution_str=, ground_truth=, extra_info=)", "source",
             _reads((VERL_NAIVE, "result = await " + VERL_CALL))),
    # -- OpenRLHF 0.11.2 ---------------------------------------------------------------------------
    Contract("openrlhf==0.11.2", "--reward.remote_url", "flag",
             _reads((OPENRLHF_AGENT, 'if self.reward_endpoints and self.reward_endpoints[0].endswith(".py"):'),
                    (OPENRLHF_AGENT, 'spec = importlib.util.spec_from_file_location("reward_func", self.reward_endpoints[0])'),
                    (OPENRLHF_AGENT, "self.reward_func = reward_module.reward_func"))),
    Contract("openrlhf==0.11.2", "--data.label_key", "flag"),
    Contract("openrlhf==0.11.2", "--data.input_key", "flag"),
    Contract("openrlhf==0.11.2", "--data.prompt_dataset", "flag"),
    Contract("openrlhf==0.11.2", "--data.apply_chat_template", "flag"),
    Contract("openrlhf==0.11.2", "--actor.model_name_or_path", "flag"),
    Contract("openrlhf==0.11.2", "call:reward_func(queries, prompts, labels)", "source",
             _reads((OPENRLHF_AGENT, "rewards_info_list = await self._fetch_rewards_via_func([query], [prompt], [label])"),
                    (OPENRLHF_AGENT, "asyncio.to_thread( self.reward_func,"),
                    (OPENRLHF_AGENT, "[SingleTurnExecutor] Failed to fetch reward from remote RM"))),
    # -- TRL 1.16.0 --------------------------------------------------------------------------------
    Contract("trl==1.16.0", "call:reward_func(prompts=, completions=, completion_ids=, **reward_kwargs)", "source",
             _reads((TRL_GRPO, "reward_func( prompts=prompts, completions=completions, "
                               "completion_ids=completion_ids_list, **reward_kwargs"),
                    (TRL_GRPO, 'reward_kwargs["trainer_state"] = self.state'),
                    (TRL_GRPO, 'reward_kwargs["log_extra"] = self._log_completion_extra'),
                    (TRL_GRPO, 'reward_kwargs["log_metric"] = self._log_metric'),
                    (TRL_GRPO, 'keys = [key for key in inputs[0] if key not in ["prompt", "completion", "completion_ids"]]'))),
    Contract("trl==1.16.0", "call:is_async_callable", "source",
             _reads((TRL_GRPO, "elif is_async_callable(reward_func):"),
                    ("trl/trainer/utils.py",
                     "return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(func.__call__)"))),
    Contract("trl==1.16.0", "log:union of logged keys", "source",
             _reads((TRL_GRPO, "for name in sorted(set(gather_object(list(self._pending_metrics)))):"),
                    (TRL_GRPO, "for column in sorted(set(gather_object(list(self._pending_extra_logs)))):"))),
    # hpcreward.live_prompts: a row's prompt is read when the row is (a map-style dataset behind RepeatSampler).
    Contract("trl==1.16.0", "data:live_dataset rows read per generation batch", "source",
             _reads((TRL_GRPO, "return RepeatSampler( data_source=dataset,"),
                    (TRL_GRPO, 'prompts = [x["prompt"] for x in inputs]'))),
    # hpcreward.episodes.KernelEnvironment as environment_factory: reset(**row), its public methods
    # the model's tools, get_reward() once per rollout.
    Contract("trl==1.16.0", "environment_factory:KernelEnvironment", "source",
             _reads((TRL_GRPO, "observation = environment.reset(**reset_kwargs)"),
                    (TRL_GRPO, 'if member_name not in ("reset", "get_reward") and not member_name.startswith("_")'),
                    (TRL_GRPO, "return [e.get_reward() if type(e) is _env_type else None for e in environments]"),
                    (TRL_GRPO, "max_tool_calling_iterations"))),
]


# -- reading a wheel ---------------------------------------------------------------------------------

def _squash(text):
    return re.sub(r"\s+", " ", re.sub(r"\(\s+", "(", text)).strip()


class Release:
    """A wheel (or, for tests, a folder laid out like one): files by their path inside the package."""

    def __init__(self, path):
        self.path = pathlib.Path(path)
        if self.path.is_dir():
            self.names = [str(p.relative_to(self.path)) for p in self.path.rglob("*") if p.is_file()]
            self._read = lambda name: (self.path / name).read_text(encoding="utf-8")
        else:
            archive = zipfile.ZipFile(self.path)
            self.names = archive.namelist()
            self._read = lambda name: archive.read(name).decode("utf-8")
        self._cache = {}

    def text(self, path):
        """The file at `path` (openrlhf's wheel puts it under openrlhf-X.data/purelib/), or None."""
        if path not in self._cache:
            found = [name for name in self.names if name == path or name.endswith("/purelib/" + path)]
            self._cache[path] = self._read(found[0]) if found else None
        return self._cache[path]


def yaml_keys(text):
    """Every dotted key path of a block-style YAML mapping (verl's generated config): enough of YAML
    for key existence; list items are skipped."""
    keys, stack = set(), []
    for line in text.splitlines():
        stripped = line.split(" #")[0].rstrip() if not line.lstrip().startswith("#") else ""
        match = re.match(r"^( *)([A-Za-z_][\w\-]*):(?:\s|$)", stripped)
        if not match:
            continue
        indent = len(match.group(1))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        stack.append((indent, match.group(2)))
        keys.add(".".join(name for _, name in stack))
    return keys


def check_release(spec, release, contracts=None):
    """The failures of every contract of `spec` (e.g. "verl==0.9.1") against `release`: one line each,
    naming the documented key, the file and what is missing."""
    failures = []
    config_keys = None
    for contract in contracts if contracts is not None else CONTRACTS:
        if contract.release != spec:
            continue
        where = f"{spec}: documented `{contract.doc}`"
        if contract.kind in ("hydra_key", "hydra_new"):
            if config_keys is None:
                config = release.text(VERL_CONFIG)
                config_keys = yaml_keys(config) if config is not None else set()
                if config is None:
                    failures.append(f"{spec}: no {VERL_CONFIG} in the wheel: every Hydra key is unchecked")
            key = contract.doc.lstrip("+").removesuffix(".*")
            if contract.kind == "hydra_key" and key not in config_keys:
                failures.append(f"{where}: key `{key}` is not in {VERL_CONFIG} (Hydra refuses `{key}=...`)")
            if contract.kind == "hydra_new" and key in config_keys:
                failures.append(f"{where}: key `{key}` is now in {VERL_CONFIG}: Hydra refuses `+{key}=...`; "
                                f"write `{key}=...`")
        if contract.kind == "flag":
            parser = release.text(OPENRLHF_CLI)
            if parser is None or f'add_argument("{contract.doc}"' not in _squash(parser).replace("add_argument( ", "add_argument("):
                failures.append(f"{where}: flag `{contract.doc}` is not in {OPENRLHF_CLI}'s parser")
        for path, needle in contract.reads:
            text = release.text(path)
            if text is None:
                failures.append(f"{where}: {path} is not in the wheel (looked for `{needle}`)")
            elif _squash(needle) not in _squash(text):
                failures.append(f"{where}: {path} no longer has `{needle}`" + (f" ({contract.why})" if contract.why else ""))
    return failures


# -- what the docs tell a user to write ----------------------------------------------------------------

def _command_blocks(text):
    return re.findall(r"```(?:sh|bash|shell)\n(.*?)```", text, flags=re.S)


def docs_items(paths=None):
    """(doc file, item) for every verl override (key or +key, 'manager:<name>' for a reward manager
    name) and OpenRLHF flag in the docs' command blocks."""
    items = []
    for relative in paths or DOCS:
        path = REPO / relative if not os.path.isabs(str(relative)) else pathlib.Path(relative)
        for block in _command_blocks(path.read_text(encoding="utf-8")):
            if "verl.trainer.main_ppo" in block:
                for key, value in re.findall(r"(?:^|\s)(\+?[a-z_][\w.]*)=(\S*)", block):
                    if key.isupper() or key.startswith(("HPCREWARD_", "export")):
                        continue
                    if key.startswith("+ray_kwargs.ray_init.runtime_env.env_vars."):
                        key = "+ray_kwargs.ray_init.runtime_env.env_vars.*"
                    items.append((relative, key))
                    if key in ("reward.reward_manager.name", "reward_model.reward_manager"):
                        items.append((relative, "manager:" + value))
            if "openrlhf.cli.train_ppo_ray" in block:
                items += [(relative, flag) for flag in re.findall(r"(?:^|\s)(--[a-z_]+\.[\w.]+)", block)]
    return [(doc, item) for doc, item in items if not item.upper() == item]


def undocumented_in_contracts(paths=None):
    known = {contract.doc for contract in CONTRACTS}
    return [f"{doc}: `{item}` is written in a command there but has no entry in "
            f"tests/python/trainer_contracts.py CONTRACTS (add one, with where the release reads it)"
            for doc, item in docs_items(paths) if item not in known]


# -- fetching ---------------------------------------------------------------------------------------

def wheel_for(spec, folder):
    name, version = spec.split("==")
    found = sorted(pathlib.Path(folder).glob(f"{name}-{version}-*.whl"))
    return found[0] if found else None


def fetch(folder, python=sys.executable):
    """Download every pinned wheel not yet in `folder` (one pip call per release). Returns the error
    text of the first failed download, or None."""
    folder.mkdir(parents=True, exist_ok=True)
    for spec in RELEASES:
        if wheel_for(spec, folder):
            continue
        print(f"trainer_contracts: downloading {spec} into {folder}", flush=True)
        result = subprocess.run([python, "-m", "pip", "download", "-q", *DOWNLOAD_OPTIONS, "-d", str(folder), spec],
                                capture_output=True, text=True)
        if result.returncode != 0 or not wheel_for(spec, folder):
            return f"pip download {spec} failed (exit {result.returncode}): {(result.stderr or result.stdout).strip()[-600:]}"
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--cache", type=pathlib.Path, help="folder for the wheels: fetched once, then reused")
    group.add_argument("--wheel-dir", type=pathlib.Path, help="folder that already holds the wheels")
    args = parser.parse_args(argv)
    folder = args.cache or args.wheel_dir
    if args.cache:
        error = fetch(folder)
        if error:
            print(f"trainer_contracts: SKIP: cannot fetch the pinned wheels ({', '.join(RELEASES)}): {error}")
            return SKIP
    failures = undocumented_in_contracts()
    for spec in RELEASES:
        wheel = wheel_for(spec, folder)
        if wheel is None:
            failures.append(f"{spec}: no wheel in {folder}")
            continue
        found = check_release(spec, Release(wheel))
        count = sum(1 for contract in CONTRACTS if contract.release == spec)
        print(f"trainer_contracts: {spec} ({wheel.name}): {count - len(found) if not found else 'FAILED'}"
              f"{' contracts hold' if not found else ''}")
        failures += found
    for failure in failures:
        print("FAIL " + failure)
    if failures:
        return 1
    print(f"trainer_contracts: ok: {len(CONTRACTS)} contracts and {len(docs_items())} documented items")
    return 0


if __name__ == "__main__":
    sys.exit(main())
