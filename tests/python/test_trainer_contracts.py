"""The docs' trainer keys are all in trainer_contracts.CONTRACTS, and the checker names a key that a
release no longer has. Offline: the releases here are small folders laid out like the wheels; the
real wheels are checked by ctest python_trainer_contracts (trainer_contracts.py --cache)."""
import dataclasses

import trainer_contracts as tc

CONFIG = """\
# comment: reward:
data:
  max_prompt_length: 512
  dataloader_num_workers: 8
  custom_cls:
    path: null
    name: null
reward:
  _target_: verl.workers.config.RewardConfig
  num_workers: 8
  custom_reward_function:
    path: null  # the file
    name: compute_score
  reward_manager:
    name: naive
ray_kwargs:
  ray_init:
    runtime_env:
      py_executable: null
list_owner:
  - item: 1
"""


def fake_verl(tmp_path, config=CONFIG, drop=()):
    """A folder with the files of verl 0.9.1 that its contracts read: the needles themselves."""
    root = tmp_path / "verl"
    texts = {tc.VERL_CONFIG: config}
    for contract in tc.CONTRACTS:
        if contract.release == "verl==0.9.1":
            for path, needle in contract.reads:
                texts[path] = texts.get(path, "") + "\n" + needle + "\n"
    for path, text in texts.items():
        for gone in drop:
            text = text.replace(gone, "")
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return tc.Release(root)


def test_every_documented_item_has_a_contract():
    assert tc.docs_items(), "no verl/OpenRLHF command blocks found in the docs"
    assert tc.undocumented_in_contracts() == []


def test_docs_show_the_verl_0_9_keys_and_the_0_7_boundary():
    items = {item for _, item in tc.docs_items()}
    for key in ("reward.custom_reward_function.path", "reward.custom_reward_function.name",
                "reward.reward_manager.name", "reward.num_workers", "+reward.timeout", "+reward.max_concurrent",
                "manager:rate_limited", "custom_reward_function.path", "--reward.remote_url", "--data.label_key"):
        assert key in items, key


def test_yaml_keys():
    keys = tc.yaml_keys(CONFIG)
    assert {"reward", "reward.num_workers", "reward.custom_reward_function.path", "reward.reward_manager.name",
            "ray_kwargs.ray_init.runtime_env.py_executable", "list_owner"} <= keys
    assert "reward.timeout" not in keys and "comment" not in keys and "list_owner.item" not in keys


def test_a_release_that_holds(tmp_path):
    assert tc.check_release("verl==0.9.1", fake_verl(tmp_path)) == []


def test_a_removed_key_is_named(tmp_path):
    failures = tc.check_release("verl==0.9.1", fake_verl(tmp_path, CONFIG.replace("  num_workers: 8\n", "")))
    assert len(failures) == 1
    assert "`reward.num_workers`" in failures[0] and "Hydra refuses `reward.num_workers=...`" in failures[0]


def test_a_key_that_became_part_of_the_config_is_named(tmp_path):
    config = CONFIG.replace("  num_workers: 8\n", "  num_workers: 8\n  timeout: 300\n")
    (failure,) = tc.check_release("verl==0.9.1", fake_verl(tmp_path, config))
    assert "`+reward.timeout`" in failure and "Hydra refuses `+reward.timeout=...`" in failure


def test_a_key_no_longer_read_is_named(tmp_path):
    release = fake_verl(tmp_path, drop=['config.reward.get("custom_reward_function")'])
    failures = tc.check_release("verl==0.9.1", release)
    assert failures and all("`reward.custom_reward_function.path`" in failure for failure in failures)
    assert "reward.py no longer has" in failures[0]


def test_a_removed_manager_is_named(tmp_path):
    (failure,) = tc.check_release("verl==0.9.1", fake_verl(tmp_path, drop=['@register_manager("rate_limited")']))
    assert "`manager:rate_limited`" in failure


def test_a_removed_openrlhf_flag_is_named(tmp_path):
    root = tmp_path / "openrlhf"
    cli = root / "openrlhf-0.11.2.data" / "purelib" / tc.OPENRLHF_CLI
    cli.parent.mkdir(parents=True)
    flags = [c.doc for c in tc.CONTRACTS if c.release == "openrlhf==0.11.2" and c.kind == "flag"]
    cli.write_text("\n".join(f'parser.add_argument(\n    "{flag}", type=str)' for flag in flags if flag != "--data.label_key"))
    contracts = [dataclasses.replace(c, reads=()) for c in tc.CONTRACTS if c.release == "openrlhf==0.11.2"]
    (failure,) = tc.check_release("openrlhf==0.11.2", tc.Release(root), contracts)
    assert "`--data.label_key`" in failure


def test_docs_items_of_a_command_block(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("```sh\nexport HPCREWARD_RENDEZVOUS=x\npython3 -m verl.trainer.main_ppo \\\n"
                   "    reward.reward_manager.name=rate_limited +reward.timeout=900 \\\n"
                   "    +ray_kwargs.ray_init.runtime_env.env_vars.HPCREWARD_RENDEZVOUS=$X \\\n"
                   "    reward.no_such_key=1\n```\n"
                   "```sh\npython3 -m openrlhf.cli.train_ppo_ray --data.label_key problem --no-dots\n```\n")
    assert [item for _, item in tc.docs_items([doc])] == [
        "reward.reward_manager.name", "manager:rate_limited", "+reward.timeout",
        "+ray_kwargs.ray_init.runtime_env.env_vars.*", "reward.no_such_key", "--data.label_key"]
    (missing,) = tc.undocumented_in_contracts([doc])
    assert "`reward.no_such_key`" in missing
