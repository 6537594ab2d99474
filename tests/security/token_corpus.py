"""A corpus for the generic token rule (issue 22 §5): many vendors' token shapes, and look-alikes that must not
match. Generated from a fixed seed, so every run sees the same text.

``FORMATS``: 44 vendor token formats (prefix, alphabet, length), most of them unknown to catcode's rule table —
what a new vendor's key looks like. Each is written in three places a person pastes a key: alone in prose, after a
vendor-named key (``ACME_KEY=…``), in a JSON/header field. ``split()`` gives two halves: the rules are built from
one (``fit``) and measured on the other. ``lookalikes()``: git SHAs, UUIDs, lockfile hashes, base64 images,
minified code, digests, object ids, hashed file names — in the places they really appear."""

from __future__ import annotations

import base64
import random
from collections.abc import Callable
from dataclasses import dataclass

from catcode.redact.generic import GenericParams

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"


@dataclass(frozen=True)
class Format:
    """One vendor's token: ``prefix`` then ``length`` characters of ``alphabet`` (``tail``: a second part)."""

    vendor: str
    prefix: str
    alphabet: str
    length: int
    tail: str = ""

    def make(self, rng: random.Random) -> str:
        body = "".join(rng.choice(self.alphabet) for _ in range(self.length))
        tail = "".join(rng.choice(HEX) for _ in range(len(self.tail)))
        return f"{self.prefix}{body}" + (f"_{tail}" if self.tail else "")


FORMATS: tuple[Format, ...] = (
    Format("acme", "acme_live_", ALNUM, 32), Format("netlify", "nfp_", ALNUM, 40),
    Format("supabase", "sbp_", HEX, 40), Format("render", "rnd_", ALNUM, 32), Format("resend", "re_", ALNUM, 32),
    Format("replicate", "r8_", ALNUM, 37), Format("groq", "gsk_", ALNUM, 52),
    Format("pinecone", "pcsk_", URLSAFE, 60), Format("langsmith", "lsv2_pt_", HEX, 32, "x" * 10),
    Format("contentful", "CFPAT-", URLSAFE, 43), Format("figma", "figd_", URLSAFE, 40),
    Format("buildkite", "bkua_", HEX, 48), Format("circleci", "CCIPAT_", ALNUM, 38),
    Format("neon", "napi_", LOWER, 64), Format("sourcegraph", "sgp_", HEX, 56),
    Format("tailscale", "tskey-api-", ALNUM, 30), Format("fly", "fo1_", URLSAFE, 43),
    Format("elevenlabs", "sk_", HEX, 48), Format("mistral", "", ALNUM, 32), Format("cohere", "", ALNUM, 40),
    Format("fastly", "", URLSAFE, 32), Format("algolia", "", HEX, 32), Format("deepgram", "", HEX, 48),
    Format("vercel", "", ALNUM, 24), Format("doppler", "dp.pt.", ALNUM, 43), Format("mapbox", "sk.", URLSAFE, 80),
    Format("atlassian", "ATATT3x", URLSAFE, 120), Format("okta", "00", URLSAFE, 40),
    Format("zapier", "zap_", ALNUM, 36), Format("clerk", "ck_live_", ALNUM, 40),
    Format("upstash", "upst_", LOWER, 44), Format("turnkey", "tk_", ALNUM, 48), Format("mux", "mux-", ALNUM, 36),
    Format("plaid", "access-production-", LOWER, 36), Format("twitch", "oauth-", LOWER, 30),
    Format("segment", "sgw_", ALNUM, 32), Format("railway", "rw_", URLSAFE, 40),
    Format("bitbucket", "ATBB", ALNUM, 32), Format("codecov", "cc_", HEX, 40),
    Format("airtable", "pat", ALNUM, 14, "x" * 64), Format("browserstack", "bs_", ALNUM, 20),
    Format("lemon", "lmsq_", B64, 48), Format("paddle", "pdl_live_apikey_", LOWER, 40),
    Format("workos", "sk_test_", ALNUM, 50),
)  # fmt: skip


@dataclass(frozen=True)
class Sample:
    """One corpus line and the token in it."""

    vendor: str
    text: str
    token: str


def samples(formats: tuple[Format, ...] = FORMATS, seed: int = 22) -> list[Sample]:
    """Three lines per format: in prose, after a vendor-named key, in a JSON field."""
    rng = random.Random(seed)
    out = []
    for f in formats:
        name = f.vendor.upper()
        for template in (
            "Use {t} for the staging deploy.",
            f"export {name}_KEY={{t}}",
            f'{{{{"x-{f.vendor}-auth": "{{t}}", "region": "eu"}}}}',
        ):
            token = f.make(rng)
            out.append(Sample(f.vendor, template.format(t=token), token))
    return out


def split(formats: tuple[Format, ...] = FORMATS) -> tuple[tuple[Format, ...], tuple[Format, ...]]:
    """Two halves of the vendor formats (alternate in name order): to build from, and to measure on."""
    ordered = sorted(formats, key=lambda f: f.vendor)
    return tuple(ordered[0::2]), tuple(ordered[1::2])


def lookalikes(seed: int = 2022) -> list[str]:
    """Lines that hold long random-looking strings that are not secrets."""
    rng = random.Random(seed)

    def pick(alphabet: str, n: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    def b64(n: int) -> str:
        return base64.b64encode(rng.randbytes(n)).decode()

    makers: list[Callable[[], str]] = [
        lambda: f"commit {pick(HEX, 40)}\nAuthor: Dev <dev@example.com>",
        lambda: f"Merge: {pick(HEX, 7)} {pick(HEX, 7)} fixes {pick(HEX, 40)}",
        lambda: f"git checkout -b fix-{pick(HEX, 40)}",
        lambda: f'revision = "{pick(HEX, 40)}"',
        lambda: f'cache_key = "{pick(HEX, 64)}"',
        lambda: f"id: {pick(HEX, 8)}-{pick(HEX, 4)}-4{pick(HEX, 3)}-a{pick(HEX, 3)}-{pick(HEX, 12)}",
        lambda: f'"session_id": "{pick(HEX, 8)}-{pick(HEX, 4)}-4{pick(HEX, 3)}-8{pick(HEX, 3)}-{pick(HEX, 12)}"',
        lambda: f'      "integrity": "sha512-{b64(64)}",',
        lambda: f"  integrity sha1-{b64(20)}",
        lambda: f'  resolved "https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#{pick(HEX, 40)}"',
        lambda: f'    {{file = "requests-2.31.0.tar.gz", hash = "sha256:{pick(HEX, 64)}"}},',
        lambda: f'checksum = "{pick(HEX, 64)}"',
        lambda: f"golang.org/x/text v0.14.0 h1:{b64(32)}",
        lambda: f"    resolution: {{integrity: sha512-{b64(64)}}}",
        lambda: f'<img src="data:image/png;base64,{b64(rng.randint(60, 300))}">',
        lambda: f"background: url(data:image/svg+xml;base64,{b64(120)});",
        lambda: f"image: ghcr.io/acme/api@sha256:{pick(HEX, 64)}",
        lambda: f"Digest: sha256:{pick(HEX, 64)}",
        lambda: f"cosign tag sha256-{pick(HEX, 64)}.sig",
        lambda: f'<script src="/assets/index-{pick(ALNUM, 8)}.js"></script> <link href="/app-{pick(HEX, 32)}.css">',
        lambda: f"_next/static/chunks/pages/_app-{pick(HEX, 16)}.js",
        lambda: f"pod/web-{pick(LOWER, 10)}-{pick(LOWER, 5)} Running",
        lambda: f"Payment intent pi_{pick(ALNUM, 24)} succeeded",
        lambda: f"event evt_{pick(ALNUM, 24)} delivered",
        lambda: (
            f"!function(e){{var t={{}};function n(r){{if(t[r])return t[r].exports;"
            f"var o=t[r]={{i:r,l:!1,exports:{{}}}};return e[r].call(o.exports,o,o.exports,n),o.l=!0,o.exports}}"
            f'n.p="/{pick(HEX, 20)}/"}}([])'
        ),
        lambda: 'var b64="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";function d(s){return s}',
        lambda: f'const __webpack_hash__ = "{pick(HEX, 20)}"; export const VERSION_{pick(LOWER, 4)} = 3;',
        lambda: f".css-{pick(LOWER, 6)}{{color:#{pick(HEX, 6)}}}.sc-{pick(ALNUM, 6)}{{margin:0}}",
        lambda: f'publicKey: "{b64(65)}"',
        lambda: f"ssh-ed25519 {b64(51)} dev@laptop",
        lambda: f'key_id = "{pick(ALNUM, 32)}"',
        lambda: f"sort_key: created_at  # {pick(HEX, 12)}",
        lambda: f"SourceMap: data:application/json;charset=utf-8;base64,{b64(200)}",
        lambda: f"The build {pick(HEX, 40)} passed on node_modules/some_really_long_package_name_v{rng.randint(1, 9)}",
        lambda: "getElementsByClassNameInternalCacheForRendering2D and mapStateToPropsWithOwnPropsFactory",
        lambda: f"version: 1.{rng.randint(0, 99)}.{rng.randint(0, 99)}-rc.{rng.randint(1, 9)}+build.{pick(HEX, 40)}",
    ]
    return [maker() for _ in range(4) for maker in makers]


def fit(
    train: list[Sample], negatives: list[str], score: Callable[[GenericParams], tuple[float, int]]
) -> GenericParams:
    """The parameters that find the most of ``train`` while touching none of ``negatives``: a grid search, the
    stricter choice winning ties. ``score(params)`` returns (recall on train, redactions in negatives)."""
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
