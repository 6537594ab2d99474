"""Issue 32 §6, as root and as an unprivileged user: inside the fence the well-known credential stores and
catcode's own folders (another project's history and checkpoints) cannot be read, ``sandbox.hidden`` hides more,
``sandbox.readable`` gives a path back, and secret-looking variables stay out of the command's environment unless
``sandbox.env`` passes them; ``catcode config`` shows all of it."""

from __future__ import annotations

from tests.security.fence_world import World

STORES = {
    ".ssh/id_ed25519": "SSH-PRIVATE-KEY",
    ".aws/credentials": "AWS-SECRET",
    ".netrc": "NETRC-PASSWORD",
    ".pgpass": "PG-PASSWORD",
    ".docker/config.json": "DOCKER-AUTH",
    ".kube/config": "KUBE-TOKEN",
    ".config/gh/hosts.yml": "GH-TOKEN",
    ".gnupg/private-keys-v1.d/key": "GPG-KEY",
    ".local/share/keyrings/login.keyring": "KEYRING",
    ".npmrc": "NPM-TOKEN",
}


def _home(world: World) -> None:
    for name, secret in STORES.items():
        world.write(world.home / name, f"{secret}\n", 0o600)
    world.write(world.home / ".ssh" / "known_hosts", "github.com ssh-ed25519 AAAA\n")


def test_credential_stores_cannot_be_read(world: World) -> None:
    _home(world)
    paths = " ".join(f"~/{name}" for name in STORES)
    result = world.fenced(f"cat {paths} 2>&1; grep -r . ~/.ssh ~/.gnupg ~/.aws ~/.config/gh 2>&1; echo end")
    assert result.endswith("end\nexit code: 0"), result
    assert not [secret for secret in STORES.values() if secret in result], result
    assert "known_hosts" not in world.fenced("ls -a ~/.ssh")


def test_readable_gives_a_path_back_and_hidden_hides_more(world: World) -> None:
    _home(world)
    world.write(world.project / ".env", "PROJECT-SECRET\n")
    world.write(world.home / "notes" / "plan.txt", "PERSONAL-NOTES\n")
    result = world.fenced(
        "cat ~/.ssh/known_hosts ~/.aws/credentials ~/.ssh/id_ed25519 .env ~/notes/plan.txt 2>&1; echo end",
        readable=["~/.ssh/known_hosts", "~/.aws"],
        hidden=[".env", "~/notes"],
    )
    assert "github.com ssh-ed25519" in result and "AWS-SECRET" in result, result
    assert "SSH-PRIVATE-KEY" not in result and "PROJECT-SECRET" not in result and "PERSONAL-NOTES" not in result
    assert (world.project / ".env").read_text() == "PROJECT-SECRET\n"  # hidden, not touched


def test_another_projects_history_and_checkpoints_cannot_be_read(world: World) -> None:
    home = world.home / ".cat-code"
    other = home / "memory" / "projects" / "project-a-1234abcd"
    world.write(other / "history.jsonl", '{"text": "PROJECT-A-HISTORY"}\n', 0o600)
    world.write(home / "checkpoints" / "project-a-1234abcd" / "git" / "HEAD", "PROJECT-A-CHECKPOINT\n", 0o600)
    world.write(home / "settings.yaml", "model: claude-sonnet-4-5  # PERSON-SETTINGS\n", 0o600)
    world.write(home / "skills" / "deploy" / "run.sh", "echo SKILL-SCRIPT\n", 0o700)
    result = world.fenced(f"grep -r . {home} 2>&1; bash {home}/skills/deploy/run.sh")
    for secret in ("PROJECT-A-HISTORY", "PROJECT-A-CHECKPOINT", "PERSON-SETTINGS"):
        assert secret not in result, result
    assert "SKILL-SCRIPT" in result  # the person's skills are this project's work too


SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-" + "a" * 40,
    "GITHUB_TOKEN": "gh-token-value",
    "DB_PASSWORD": "hunter2",
    "PGPASSWORD": "hunter3",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "STRIPE_SECRET": "stripe-secret",
    "SIGNING_KEY": "signing-key",
    "SSH_AUTH_SOCK": "/run/user/0/ssh-agent.sock",
    "UNREMARKABLE_NAME": "ghp_" + "B" * 36,  # a GitHub token by its shape
    "DATABASE_URL": "postgres://app:s3cret-pass@db/app",  # a password in a URL
}


def test_secret_looking_variables_stay_outside_unless_passed_by_name(world: World) -> None:
    env = {**SECRETS, "EDITOR": "vim", "TOKENIZERS_PARALLELISM": "false", "NODE_ENV": "test"}
    shown = world.fenced("env", variables=env)
    assert not [name for name in SECRETS if f"{name}=" in shown], shown
    for name in ("EDITOR", "TOKENIZERS_PARALLELISM", "NODE_ENV", "HOME", "PATH"):
        assert f"\n{name}=" in f"\n{shown}", name
    passed = world.fenced("env", variables=env, env=["GITHUB_TOKEN", "AWS_*"])
    assert "\nGITHUB_TOKEN=gh-token-value\n" in f"\n{passed}" and "AWS_SECRET_ACCESS_KEY=aws-secret" in passed
    assert "DB_PASSWORD=" not in passed


def test_config_shows_what_the_fence_hides_and_withholds(world: World) -> None:
    _home(world)
    code, said = world.catcode("config", GITHUB_TOKEN="gh-token-value")
    assert code == 0, said
    assert "sandbox.hidden hides more, sandbox.readable gives a path back, sandbox.env passes a variable" in said
    now = next(line for line in said.splitlines() if line.strip().startswith("hidden now:"))
    later = next(line for line in said.splitlines() if line.strip().startswith("hidden too when they exist:"))
    for name in (".ssh", ".aws", ".netrc", ".docker/config.json", ".kube/config", ".config/gh", ".gnupg"):
        assert f"~/{name}" in now, now
    assert "~/.cat-code" in f"{now} {later}" and "~/.config/gcloud" in later
    assert "GITHUB_TOKEN" in next(line for line in said.splitlines() if "withheld now" in line)
