"""The generalisation corpus for redaction (issues 22 §5 and 33 §5): secret formats in the places people put them,
split into the formats catcode's rules were written against (``SEEN``) and formats no rule of catcode's names
(``UNSEEN``: only what holds a value — a secret-named key, "password is", a connection string — or its shape can
find them); and look-alikes that must come out unchanged. Generated from fixed seeds: every run sees the same text.

``tests/security/test_secret_formats.py`` holds catcode to it (and checks that no rule names an unseen format);
``scripts/bench_redaction.py`` prints recall on each half, precision on the look-alikes and the time per MB, next to
the previous redactor's in the same run. Every value is random, never a live credential."""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

from catcode.redact import Redactor
from catcode.redact.generic import GenericParams

ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
WORDS = (  # noqa: SIM905 (a list of words reads best as words)
    "correct horse battery staple orange river maple cobalt lantern velvet thunder pepper saddle quartz meadow "
    "falcon harbor pixel walnut tundra violet copper ember glacier hollow juniper kettle marble nectar orchid pebble "
    "quiver raven sparrow timber umber willow yonder zephyr anchor bramble canyon dune fable gravel hazel ivory jasper "
    "lemon mango nutmeg otter pylon quill russet sable tango ulcer vortex wombat xenon yarrow zinnia letmein sunshine "
    "dragon monkey shadow princess football baseball welcome trustno iloveyou starwars whatever freedom"
).split()


def pick(rng: random.Random, alphabet: str, n: int) -> str:
    """``n`` characters of ``alphabet``."""
    return "".join(rng.choice(alphabet) for _ in range(n))


def b64(rng: random.Random, n: int) -> str:
    """Base64 of ``n`` random bytes."""
    return base64.b64encode(rng.randbytes(n)).decode()


def joined_words(rng: random.Random, low: int = 2, high: int = 4) -> str:
    """A password made of lowercase words run together: ``correcthorsebatterystaple``."""
    return "".join(rng.sample(WORDS, rng.randint(low, high)))


def spaced_words(rng: random.Random) -> str:
    """A diceware passphrase: ``correct horse battery staple``."""
    return " ".join(rng.sample(WORDS, rng.randint(3, 5)))


def chosen_password(rng: random.Random) -> str:
    """What people choose: words run together, sometimes with digits or a symbol, sometimes all lowercase."""
    word = joined_words(rng)
    return rng.choice([word, word + str(rng.randint(1, 9999)), word.capitalize() + "!" + str(rng.randint(10, 99))])


@dataclass(frozen=True)
class Format:
    """One secret format: ``make`` gives ``(text, secret)`` samples, the secret somewhere in the text."""

    name: str
    make: Callable[[random.Random], list[tuple[str, str]]]


@dataclass(frozen=True)
class Sample:
    """One corpus line and the secret in it."""

    format: str
    text: str
    secret: str


def token(vendor: str, prefix: str, alphabet: str, length: int, tail: str = "") -> Format:
    """A vendor token (``prefix`` then ``length`` characters of ``alphabet``), in the four places a key is pasted:
    after a vendor-named key, in a JSON header field, in a sentence that says what it is, and bare in a sentence."""

    def make(rng: random.Random) -> list[tuple[str, str]]:
        out = []
        name = vendor.upper().replace("-", "_")
        for template in (
            f"export {name}_API_KEY={{t}}",
            f'{{{{"x-{vendor}-auth": "{{t}}", "region": "eu"}}}}',
            f"my {vendor} token is {{t}}",
            "Use {t} for the staging deploy.",
        ):
            value = prefix + pick(rng, alphabet, length) + (tail and "_" + pick(rng, HEX, len(tail)))
            out.append((template.format(t=value), value))
        return out

    return Format(vendor, make)


def shaped(name: str, value: Callable[[random.Random], str], *templates: str) -> Format:
    """A format with its own templates (``{v}`` is the secret)."""

    def make(rng: random.Random) -> list[tuple[str, str]]:
        out = []
        for template in templates:
            secret = value(rng)
            out.append((template.replace("{v}", secret), secret))
        return out

    return Format(name, make)


def _pem(kind: str) -> Callable[[random.Random], str]:
    def make(rng: random.Random) -> str:
        body = "\n".join(b64(rng, 48) for _ in range(6))
        return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----"

    return make


def _gcp_key(rng: random.Random) -> list[tuple[str, str]]:
    pem = _pem("")(rng).replace("\n", "\\n")
    text = (
        '{"type": "service_account", "project_id": "acme-prod", "private_key_id": "'
        + pick(rng, HEX, 40)
        + f'", "private_key": "{pem}\\n", "client_email": "ci@acme-prod.iam.gserviceaccount.com"}}'
    )
    return [(text, pem)]


def _jwt(rng: random.Random) -> str:
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    body = base64.urlsafe_b64encode(f'{{"sub":"{rng.randint(1, 10**6)}","role":"admin"}}'.encode()).decode()
    return f"{head}.{body.rstrip('=')}.{pick(rng, URLSAFE, 43)}"


SEEN: tuple[Format, ...] = (
    # Vendor formats catcode's rule table names (gitleaks', detect-secrets' and the ones issue 33 found missing).
    token("gitlab", "glpat-", URLSAFE, 20),
    token("npm", "npm_", ALNUM, 36),
    token("pypi", "pypi-AgEIcHlwaS5vcmc", URLSAFE, 60),
    shaped("slack-bot", lambda r: f"xoxb-{pick(r, HEX[:10], 12)}-{pick(r, HEX[:10], 13)}-{pick(r, ALNUM, 24)}",
           "SLACK_BOT_TOKEN={v}", "the bot token {v}"),
    token("stripe", "sk_live_", ALNUM, 24),
    token("twilio", "SK", HEX, 32),
    token("github", "ghp_", ALNUM, 36),
    token("vault", "hvs.", URLSAFE, 24),
    token("vault-batch", "hvb.", URLSAFE, 140),
    token("atlassian", "ATATT3x", URLSAFE, 180),
    token("doppler", "dp.st.", ALNUM, 44),
    token("doppler-personal", "dp.pt.", ALNUM, 43),
    token("huggingface", "hf_", ALNUM, 34),
    token("anthropic", "sk-ant-api03-", URLSAFE, 93),
    token("openai", "sk-proj-", URLSAFE, 64),
    token("google", "AIza", URLSAFE, 35),
    token("grafana", "glsa_", ALNUM, 32, "x" * 8),
    shaped("sendgrid", lambda r: f"SG.{pick(r, URLSAFE, 22)}.{pick(r, URLSAFE, 43)}", "SENDGRID_API_KEY={v}",
           "the mail key is {v}"),
    shaped("aws", lambda r: "AKIA" + pick(r, UPPER, 16), "aws_access_key_id = {v}", '"AccessKeyId": "{v}"'),
    shaped("aws-secret", lambda r: pick(r, "ABCDEFGHIJ" + ALNUM + "/+", 40),
           "aws_secret_access_key = {v}", "AWS_SECRET_ACCESS_KEY={v}"),
    shaped("azure-storage", lambda r: b64(r, 64),
           "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={v};EndpointSuffix=core.windows.net"),
    shaped("jwt", _jwt, "Authorization: Bearer {v}", "the session token {v} expired"),
    shaped("private-key", _pem("RSA "), "{v}", "key file:\n{v}\n"),
    shaped("openssh-key", _pem("OPENSSH "), "{v}"),
    Format("gcp-service-account", _gcp_key),
    shaped("postgres-url", lambda r: chosen_password(r), "DATABASE_URL=postgres://app:{v}@db.internal:5432/app",
           "psql postgresql://admin:{v}@10.0.0.5/orders"),
    shaped("password-prose", chosen_password, "my password is {v}", "The root password was {v}."),
    shaped("env-password", joined_words, "DB_PASSWORD={v}", "export POSTGRES_PASSWORD={v}"),
    shaped("kv-password", joined_words, "password={v}", "user=bob password={v}"),
    shaped("yaml-passphrase", spaced_words, "passphrase: {v}", "  ssh_passphrase: {v}"),
    shaped("netrc", chosen_password, "machine api.example.com login alice password {v}"),
    shaped("basic-auth-url", chosen_password, "git clone https://deploy:{v}@git.example.com/acme/app.git"),
    shaped("chinese-password", chosen_password, "数据库密码是 {v}", "密码：{v}"),
)  # fmt: skip

UNSEEN: tuple[Format, ...] = (
    # No rule of catcode's names these: only a secret-named key, a stated password, a connection string or the shape
    # of a generated token can find them (test_secret_formats.py checks no vendor kind is reported for them).
    token("acme", "acme_live_", ALNUM, 32),
    token("netlify", "nfp_", ALNUM, 40),
    token("supabase", "sbp_", HEX, 40),
    token("render", "rnd_", ALNUM, 32),
    token("replicate", "r8_", ALNUM, 37),
    token("groq", "gsk_", ALNUM, 52),
    token("pinecone", "pcsk_", URLSAFE, 60),
    token("langsmith", "lsv2_pt_", HEX, 32, "x" * 10),
    token("contentful", "CFPAT-", URLSAFE, 43),
    token("figma", "figd_", URLSAFE, 40),
    token("buildkite", "bkua_", HEX, 48),
    token("circleci", "CCIPAT_", ALNUM, 38),
    token("neon", "napi_", LOWER, 64),
    token("sourcegraph", "sgp_", HEX, 56),
    token("tailscale", "tskey-api-", ALNUM, 30),
    token("fly", "fo1_", URLSAFE, 43),
    token("elevenlabs", "sk_", HEX, 48),
    token("mapbox", "sk.", URLSAFE, 80),
    token("zapier", "zap_", ALNUM, 36),
    token("clerk", "ck_live_", ALNUM, 40),
    token("upstash", "upst_", LOWER, 44),
    token("turnkey", "tk_", ALNUM, 48),
    token("mux", "mux-", ALNUM, 36),
    token("plaid", "access-production-", LOWER, 36),
    token("segment", "sgw_", ALNUM, 32),
    token("railway", "rw_", URLSAFE, 40),
    token("codecov", "cc_", HEX, 40),
    token("lemon", "lmsq_", B64, 48),
    token("paddle", "pdl_live_apikey_", LOWER, 40),
    token("workos", "wos_live_", ALNUM, 50),
    token("newrelic", "NRAK-", UPPER, 27),
    token("dropbox", "sl.", URLSAFE, 130),
    token("ngrok", "2", ALNUM, 26, "x" * 27),
    token("mistral", "", ALNUM, 32),
    token("cohere", "", ALNUM, 40),
    token("okta", "00", URLSAFE, 40),
    token("cloudflare", "", URLSAFE, 40),
    token("datadog", "", HEX, 32),
    shaped("ado-connection-string", chosen_password,
           "Server=tcp:db.example.com,1433;Database=app;User Id=sa;Password={v};Encrypt=true;"),
    shaped("jdbc", joined_words, "jdbc:postgresql://db:5432/app?user=app&password={v}&ssl=true"),
    shaped("mongodb-url", joined_words, "MONGO_URL=mongodb+srv://svc:{v}@cluster0.ab1cd.mongodb.net/app"),
    shaped("redis-url", joined_words, "REDIS_URL=redis://:{v}@cache.internal:6379/0"),
    shaped("amqp-url", chosen_password, "broker_url = 'amqp://worker:{v}@rabbit:5672//'"),
    shaped("sentry-dsn", lambda r: pick(r, HEX, 32), "SENTRY_DSN=https://{v}@o4504.ingest.sentry.io/4505"),
    shaped("form-body", joined_words, "POST /token with username=bob&password={v}&grant_type=password"),
    shaped("cli-flag", chosen_password, "mysqldump --user=root --password={v} shop > dump.sql",
           "vault login --password {v}"),
    shaped("toml-password", chosen_password, 'password = "{v}"'),
    shaped("json-password", joined_words, '{"username": "svc", "password": "{v}"}'),
    shaped("xml-password", chosen_password, "<password>{v}</password>"),
    shaped("ini-password", joined_words, "[database]\nuser = app\npassword = {v}\n", "PASSWORD = {v}"),
    shaped("yaml-password", joined_words, "db:\n  user: app\n  password: {v}\n", "smtp_password: {v}"),
    shaped("wifi-prose", chosen_password, "the wifi password is {v}", "Our office wifi passphrase is {v}."),
    shaped("passphrase-prose", spaced_words, "my ssh key's passphrase is {v}",
           "The passphrase is {v}"),
    shaped("secret-key-base", lambda r: pick(r, HEX, 128), "secret_key_base: {v}"),
    shaped("django-secret", lambda r: pick(r, ALNUM + "!@#%^&*(-_=+)", 50), "SECRET_KEY = '{v}'"),
    shaped("basic-auth-header", lambda r: base64.b64encode(f"svc:{joined_words(r)}".encode()).decode(),
           "Authorization: Basic {v}"),
    shaped("api-key-header", lambda r: pick(r, ALNUM, 32), "X-API-Key: {v}", "curl -H 'x-api-key: {v}' https://api"),
    shaped("kubeconfig-token", lambda r: pick(r, LOWER, 6) + "." + pick(r, LOWER, 16),
           "users:\n- name: ci\n  user:\n    token: {v}\n"),
    shaped("npmrc", lambda r: pick(r, ALNUM, 36), "//registry.example.com/:_authToken={v}"),
    shaped("docker-auth", lambda r: base64.b64encode(f"ci:{pick(r, ALNUM, 24)}".encode()).decode(),
           '{"auths": {"ghcr.io": {"auth": "{v}"}}}'),
    shaped("cookie", lambda r: pick(r, URLSAFE, 40), "Cookie: session={v}; theme=dark"),
    shaped("token-prose", lambda r: pick(r, ALNUM, 32), "here is the deploy token: {v}",
           "The API key is {v} (rotate monthly)"),
    shaped("pgp-key", _pem("PGP "), "{v}"),
    shaped("ec-key", _pem("EC "), "{v}"),
)  # fmt: skip


def samples(formats: tuple[Format, ...], seed: int = 33) -> list[Sample]:
    """Every sample of ``formats``."""
    rng = random.Random(seed)
    return [Sample(f.name, text, secret) for f in formats for text, secret in f.make(rng)]


def placeholders() -> list[str]:
    """Secret-named keys holding a stand-in, and code that reads a secret: must come out unchanged."""
    keys = ["password", "DB_PASSWORD", "passphrase", "api_key", "SECRET_KEY", "token", "client_secret", "pwd"]
    values = [
        "changeme", "change_me", "changeit", "<your password>", "<API_KEY>", "${DB_PASSWORD}", "${{ secrets.TOKEN }}",
        "****", "********", "xxxxxxxx", "XXXXXXXX", "REPLACE_ME", "your-password-here", "your_password_here",
        "yourpassword", "mypassword", "{{ vault_password }}", "%(password)s", "<redacted>", "[hidden]", "...",
        "none", "null", "None", "nil", "true", "false", "password", "secret", "example", "placeholder", "dummy",
        "TODO", "required", "optional", "str", "string", "SecretStr", "os.environ['DB_PASSWORD']",
        'process.env.DB_PASSWORD', "getpass()", "args.password", "self.password", "settings.SECRET_KEY",
        "get_token()", "$DB_PASSWORD", "%DB_PASSWORD%", "ENV['TOKEN']", '""', "''",
    ]  # fmt: skip
    lines = [f"{key}={value}" for key in keys for value in values]
    lines += [f"{key}: {value}" for key in keys[:4] for value in values]
    lines += [
        "password: str", "password: Optional[str] = None", "const password: string = process.env.PASSWORD!;",
        'String password = System.getenv("DB_PASSWORD");', "$password = $_POST['password'];",
        "conn = connect(user=user, password=password)", "login(username, password=pw)",
        "if password == confirm_password:", "token = tokens[0]", "api_key = args.api_key",
        "secret = secrets.token_hex(32)", "self.password = password", "password = request.form['password']",
        "let token = await getToken();", "password_confirmation: password", "PASSWORD_MIN_LENGTH=8",
        "password_min_length: 12", "token_ttl: 3600", "max_tokens: 4096", "secret_name: db-credentials",
        "api_key_header: X-API-Key", "auth: true", "password_auth: false", "PasswordAuthentication no",
        "token_type: bearer", "tokenizer: cl100k_base", "secret_manager: aws", "passwordless: true",
        "password_reset_url: https://example.com/reset", "grant_type=password", "keychain: login",
        "pass  # nothing to do", "secret_santa: true", "passport_number_field: hidden",
        "password = hashlib.sha256(raw).hexdigest()", "hashed_password = '$2b$12$"
        + "R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW'",
        "password_hash: $argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG",
        "password: !vault |", "password: ENC[AES256_GCM,data:Tr0u,iv:x,tag:y,type:str]", "Password: unknown",
        "Password: N/A", "MYSQL_ALLOW_EMPTY_PASSWORD=yes", "MYSQL_RANDOM_ROOT_PASSWORD=true",
        "PASSWORD=$(openssl rand -hex 16)", "PGPASSWORD=$PW psql", "docker login --password-stdin < token.txt",
        "--token-file /run/secrets/token", "ssh -o PasswordAuthentication=no host", "MIN_PASSWORD_LENGTH=8",
        "PASSWORD_REGEX=^(?=.*[A-Z]).{8,}$", "AUTH_PASSWORD_VALIDATORS = [", "token: {{ .Values.token }}",
        'password = "<%= ENV[\'PW\'] %>"', "auth_token: ${{ secrets.AUTH_TOKEN }}", "api_key: ${API_KEY:-}",
        "PASSWORD=${PASSWORD:-changeme}", 'data = {"password": password, "user": user}', "if token:",
        "Reset password: click the link in the email", "Password: see below", "password: >-",
        '<input type="password" name="password" value="">', "echo $PASSWORD | docker login -u ci --password-stdin",
        "export PASSWORD", "read -s PASSWORD", "password.length >= 8", "The key: Ctrl+K opens search.",
        "API_KEY=your_api_key_here", "token: Bearer", "Authorization: Bearer <token>", "x-api-key: $API_KEY",
    ]  # fmt: skip
    return lines


def prose() -> list[str]:
    """Sentences about passwords, keys and tokens that hold none."""
    return [
        "The password is required.", "The password is hashed with bcrypt before it is stored.",
        "my password is not working after the upgrade", "Your password is too short.", "The password is wrong.",
        "The password is incorrect, try again.", "The password is case sensitive.", "The password is expired.",
        "The password is the same as the old one.", "The password is stored in the keychain.",
        "The passphrase is optional.", "The passphrase was forgotten, so we rotated the key.",
        "Password: see the team vault.", "password: (none)", "The password is reset every ninety days.",
        "Remember that the password is never logged.", "Is the password correct?",
        "The wifi password is on the fridge.",
        "The password is different on staging.", "Make sure the password is strong and unique.",
        "The token is valid for an hour.", "The API key is stored in Vault under secret/api.",
        "The token was revoked yesterday.", "Rotate the key every quarter.", "The secret is mounted at /run/secrets.",
        "The password is empty by default.", "The passcode is six digits.", "This password is temporary.",
        "Your password is protected by argon2.", "The password is encrypted at rest.",
        "her password is very long and random", "The admin password is managed by the platform team.",
        "The password is set by the installer.", "A password is what you know, a token what you have.",
        "Passwords are hashed; tokens are random.", "The token is in the Authorization header.",
        "password is missing", "The password is unknown to us.", "The new password is active now.",
        "密码是必填项。", "令牌为空时返回 401。", "The password field is labelled Password.",
        "Use a passphrase of four random words.", "Pass the token as a bearer token.",
        "The default password is listed in the vendor manual.", "The password is the one from onboarding.",
        "The password is long enough.", "Your password is about to expire.", "the password is in the vault",
        "The password is what you set during install.", "The password is usually the hostname.",
        "The password is generated at first boot.", "The password is sent by email.", "The passcode is 1234.",
        "Her passphrase was too short.", "The API key is valid for a year.", "Your API key is shown only once.",
        "The token count is 4096.", "The key is in ~/.ssh/id_ed25519.", "my ssh key is in the usual place",
        "The passphrase is correct, the key is wrong.", "The password is now stored hashed.",
        "The password is strong enough now.", "the password is case-sensitive and must be 12 characters",
        "His password is written on a sticky note.", "The password is forgotten too often.",
    ]  # fmt: skip


def shapes(seed: int = 2022) -> list[str]:
    """Long random-looking strings that are not secrets, where they really appear: hashes, ids, digests, keys
    that are public, encoded images, minified code."""
    rng = random.Random(seed)

    def uuid() -> str:
        return f"{pick(rng, HEX, 8)}-{pick(rng, HEX, 4)}-4{pick(rng, HEX, 3)}-a{pick(rng, HEX, 3)}-{pick(rng, HEX, 12)}"

    makers: list[Callable[[], str]] = [
        lambda: f"commit {pick(rng, HEX, 40)}\nAuthor: Dev <dev@example.com>",
        lambda: f"Merge: {pick(rng, HEX, 7)} {pick(rng, HEX, 7)} fixes {pick(rng, HEX, 40)}",
        lambda: f"git checkout -b fix-{pick(rng, HEX, 40)}",
        lambda: f'revision = "{pick(rng, HEX, 40)}"',
        lambda: f'cache_key = "{pick(rng, HEX, 64)}"',
        lambda: f"md5: {pick(rng, HEX, 32)}  sha1: {pick(rng, HEX, 40)}",
        lambda: f"sha256sum: {pick(rng, HEX, 64)}  app.tar.gz",
        lambda: f"sha512: {pick(rng, HEX, 128)}",
        lambda: f"id: {uuid()}",
        lambda: f'"session_id": "{uuid()}"',
        lambda: f"request_id={uuid()} trace_id={pick(rng, HEX, 32)}",
        lambda: f'      "integrity": "sha512-{b64(rng, 64)}",',
        lambda: f"golang.org/x/text v0.14.0 h1:{b64(rng, 32)}",
        lambda: f'<img src="data:image/png;base64,{b64(rng, rng.randint(60, 300))}">',
        lambda: f"image: ghcr.io/acme/api@sha256:{pick(rng, HEX, 64)}",
        lambda: f"container {pick(rng, HEX, 12)} exited; full id {pick(rng, HEX, 64)}",
        lambda: f'<script src="/assets/index-{pick(rng, ALNUM, 8)}.js"></script>',
        lambda: f"_next/static/chunks/pages/_app-{pick(rng, HEX, 16)}.js",
        lambda: f"Payment intent pi_{pick(rng, ALNUM, 24)} succeeded for cus_{pick(rng, ALNUM, 14)}",
        lambda: f"event evt_{pick(rng, ALNUM, 24)} delivered",
        lambda: f"ssh-ed25519 {b64(rng, 51)} dev@laptop",
        lambda: f'publicKey: "{b64(rng, 65)}"',
        lambda: f'key_id = "{pick(rng, ALNUM, 32)}"',
        lambda: f"ObjectId('{pick(rng, HEX, 24)}')",
        lambda: f"ULID {pick(rng, '0123456789ABCDEFGHJKMNPQRSTVWXYZ', 26)} ordered by time",
        lambda: f"tx 0x{pick(rng, HEX, 64)} from 0x{pick(rng, HEX, 40)}",
        lambda: f"instance i-0{pick(rng, HEX, 16)} in vpc-0{pick(rng, HEX, 16)}",
        lambda: f"arn:aws:iam::{rng.randint(10**11, 10**12 - 1)}:role/deploy-{pick(rng, LOWER, 6)}",
        lambda: f'ETag: "{pick(rng, HEX, 32)}"',
        lambda: f"version: 1.{rng.randint(0, 99)}.{rng.randint(0, 99)}+build.{pick(rng, HEX, 40)}",
        lambda: f"pod/web-{pick(rng, LOWER, 10)}-{pick(rng, LOWER, 5)} Running",
        lambda: f".css-{pick(rng, LOWER, 6)}{{color:#{pick(rng, HEX, 6)}}}",
        lambda: f"sort_key: created_at  # {pick(rng, HEX, 12)}",
        lambda: f"GPG key fingerprint {pick(rng, HEX.upper(), 40)}",
        lambda: f"https://github.com/acme/app/actions/runs/{rng.randint(10**9, 10**10)}",
        lambda: "getElementsByClassNameInternalCacheForRendering2D and mapStateToPropsWithOwnPropsFactory",
        lambda: f"the cache key is {pick(rng, HEX, 64)}",
        lambda: f"The build {pick(rng, HEX, 40)} passed on node_modules/some_really_long_package_name_v2",
    ]
    return [maker() for _ in range(3) for maker in makers]


def lookalikes() -> list[str]:
    """Every look-alike: placeholders and code, prose, and shapes."""
    return placeholders() + prose() + shapes()


def found(redactor: Redactor, sample: Sample) -> bool:
    """Is the sample's secret gone (every word of a passphrase too), with at least one redaction?"""
    out, kinds = redactor.redact(sample.text)
    rest = sample.text.replace(sample.secret, "")
    return (
        bool(kinds)
        and sample.secret not in out
        and not any(len(word) >= 4 and word in out and word not in rest for word in sample.secret.split())
    )


def recall(redactor: Redactor, found_in: list[Sample]) -> float:
    """Share of ``found_in`` whose secret the redactor removes."""
    return sum(found(redactor, s) for s in found_in) / len(found_in)


def false_hits(redactor: Redactor, texts: list[str]) -> int:
    """Redactions made in texts that hold no secret."""
    return sum(len(redactor.redact(text)[1]) for text in texts)


def fitted() -> GenericParams:
    """The generic rule's parameters fitted on the seen half: what finds most of its formats with no vendor rule
    helping (the generic rule and the key rules alone), touching no look-alike of the fitting half."""
    seen, negatives = samples(SEEN), lookalikes()[0::2]

    def score(params: GenericParams) -> tuple[float, int]:
        return recall(Redactor((), families=(), generic_params=params), seen), false_hits(
            Redactor(generic_params=params), negatives
        )

    return fit(seen, negatives, score)


def fit(
    train: list[Sample], negatives: list[str], score: Callable[[GenericParams], tuple[float, int]]
) -> GenericParams:
    """The generic rule's parameters that find the most of ``train`` while touching none of ``negatives``: a grid
    search, the stricter choice winning ties. ``score(params)`` returns (recall on train, redactions in negatives)."""
    best: tuple[float, int, float, int, GenericParams] | None = None
    for min_body in (16, 20, 24, 28, 32):
        for min_entropy in (3.0, 3.2, 3.4, 3.6, 3.8, 4.0):
            for min_assigned in (12, 16, 20, 24):
                params = GenericParams(min_body, min_entropy, min_assigned)
                recall, false_hits = score(params)
                if false_hits:
                    continue
                key = (recall, min_body, min_entropy, min_assigned, params)
                if best is None or key[:4] > best[:4]:
                    best = key
    return best[4] if best is not None else GenericParams(64, 6.0, 64)
