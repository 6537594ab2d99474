"""English irregular verbs: the standard table of base form, simple past and past participle (data, no logic
beyond a lookup), so a question in one tense finds a turn in another.

The porter stemmer maps "painted" to "paint" but not "went" to "go" or "bought" to "buy": a natural question
("When did Caroline go to the support group?") asks with the base form that "did" takes, and the turn that answers
it says "I went to a support group yesterday". ``verb_forms`` gives every form of the verbs a word is a form of,
and the ranking searches them as alternatives of the word, at a lower weight (``ranking.VERB_WEIGHT``).

The table is the usual one of English grammars and learners' dictionaries (about 190 verbs, common prefixed forms
such as "understand" and "forgive" included). Only the irregular forms are listed: a regular alternative
("dreamed", "learned") is reduced to the base form by the stemmer already, and listing it would count the base
form twice. "goes" is added to "go": porter reduces it to "goe", not "go". "born" is left out of "bear": "When was
Ada born?" is not about bears. Forms that are a stop word ("did", "was", "had", "won") are dropped by the caller:
a stop word is not searched for."""

from __future__ import annotations

__all__ = ["verb_forms"]

# base, past, participle; alternatives separated by "/".
_TABLE = """
arise arose arisen; awake awoke awoken; be was/were been; bear bore borne; beat beat beaten;
become became become; befall befell befallen; begin began begun; behold beheld beheld; bend bent bent;
bet bet bet; bid bade bidden; bind bound bound; bite bit bitten; bleed bled bled; blow blew blown;
break broke broken; breed bred bred; bring brought brought; build built built; burn burnt burnt;
burst burst burst; buy bought bought; cast cast cast; catch caught caught; choose chose chosen;
cling clung clung; come came come; cost cost cost; creep crept crept; cut cut cut; deal dealt dealt;
dig dug dug; dive dove dived; do did done; draw drew drawn; dream dreamt dreamt; drink drank drunk;
drive drove driven; dwell dwelt dwelt; eat ate eaten; fall fell fallen; feed fed fed; feel felt felt;
fight fought fought; find found found; flee fled fled; fling flung flung; fly flew flown; forbid forbade forbidden;
forecast forecast forecast; foresee foresaw foreseen; foretell foretold foretold; forget forgot forgotten;
forgive forgave forgiven; forsake forsook forsaken; freeze froze frozen; get got gotten; give gave given;
go went gone; grind ground ground; grow grew grown; hang hung hung; have had had; hear heard heard;
hide hid hidden; hit hit hit; hold held held; hurt hurt hurt; keep kept kept; kneel knelt knelt;
know knew known; lay laid laid; lead led led; lean leant leant; leap leapt leapt; learn learnt learnt;
leave left left; lend lent lent; let let let; lie lay lain; light lit lit; lose lost lost; make made made;
mean meant meant; meet met met; mislead misled misled; mistake mistook mistaken; misunderstand misunderstood
misunderstood; mow mowed mown; outdo outdid outdone; outgrow outgrew outgrown; overcome overcame overcome;
overdo overdid overdone; overhear overheard overheard; override overrode overridden; overrun overran overrun;
oversee oversaw overseen; oversleep overslept overslept; overtake overtook overtaken; overthrow overthrew
overthrown; pay paid paid; prove proved proven; put put put; quit quit quit; read read read; rebuild rebuilt
rebuilt; redo redid redone; remake remade remade; repay repaid repaid; rethink rethought rethought; rewrite
rewrote rewritten; rid rid rid; ride rode ridden; ring rang rung; rise rose risen; run ran run; say said said;
see saw seen; seek sought sought; sell sold sold; send sent sent; set set set; sew sewed sewn; shake shook shaken;
shear sheared shorn; shed shed shed; shine shone shone; shoot shot shot; show showed shown; shrink shrank shrunk;
shut shut shut; sing sang sung; sink sank sunk; sit sat sat; slay slew slain; sleep slept slept; slide slid slid;
sling slung slung; slit slit slit; smell smelt smelt; sow sowed sown; speak spoke spoken; speed sped sped;
spell spelt spelt; spend spent spent; spill spilt spilt; spin spun spun; spit spat spat; split split split;
spoil spoilt spoilt; spread spread spread; spring sprang sprung; stand stood stood; steal stole stolen;
stick stuck stuck; sting stung stung; stink stank stunk; stride strode stridden; strike struck struck;
string strung strung; strive strove striven; swear swore sworn; sweep swept swept; swell swelled swollen;
swim swam swum; swing swung swung; take took taken; teach taught taught; tear tore torn; tell told told;
think thought thought; throw threw thrown; thrust thrust thrust; tread trod trodden; undergo underwent undergone;
understand understood understood; undertake undertook undertaken; undo undid undone; unwind unwound unwound;
uphold upheld upheld; upset upset upset; wake woke woken; wear wore worn; weave wove woven; wed wed wed;
weep wept wept; wet wet wet; win won won; wind wound wound; withdraw withdrew withdrawn; withhold withheld
withheld; withstand withstood withstood; wring wrung wrung; write wrote written
"""
_EXTRA = {"go": ("goes",), "undergo": ("undergoes",)}
"""Forms the stemmer does not bring back to the base: porter makes "goes" "goe"."""


def _groups() -> dict[str, tuple[str, ...]]:
    """Every form → the other forms of every verb it is a form of ("lay": laid, lain, lie), sorted."""
    by_form: dict[str, set[str]] = {}
    for row in _TABLE.replace("\n", " ").split(";"):
        base, past, participle = row.split()
        forms = {base, *past.split("/"), *participle.split("/"), *_EXTRA.get(base, ())}
        for form in forms:
            by_form.setdefault(form, set()).update(forms)
    return {form: tuple(sorted(forms - {form})) for form, forms in by_form.items()}


_GROUPS = _groups()


def verb_forms(word: str) -> tuple[str, ...]:
    """The other forms of every irregular verb ``word`` (lowercase) is a form of, sorted; () for any other word:
    ``verb_forms("go") == ("goes", "gone", "went")``, ``verb_forms("bought") == ("buy",)``."""
    return _GROUPS.get(word, ())
