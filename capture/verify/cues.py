"""Cue words in languages other than English, as data: corrections, hedges, failures.

The English cues live in the regular expressions beside each check; a session written in
Japanese, Chinese, Spanish, German, French, Portuguese, Korean or Russian said nothing
to them, so its hedges and corrections never became hints (issue 21). Each table lists
(language, phrase); a phrase is matched in a normalised text (casefolded, accents
folded) with the boundaries its language needs:

- ja, zh: a substring of the sentence (no spaces between words); a Chinese cue does not
  apply to a text with kana in it (可能 is "possible" in Japanese, "maybe" in Chinese),
  nor a Japanese cue of kanji alone to one without (多分 is "-odd" in 十多分钟);
- others: whole words; a trailing `*` makes the phrase a stem (Korean endings, "corrig*"),
  a leading `~` a plain substring;
- a leading `^` holds the phrase to a sentence's start, a trailing `,` to a following
  comma, colon, dash or stop ("Nein, …", "いいえ、…").

Conservative by design: a phrase here must be a cue wherever it stands in a sentence of
a coding session, so "no" or "non" alone never is.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from capture.ground import normalise

Table = tuple[tuple[str, str], ...]

# The earlier statement was wrong ("no, …", "actually", "I stand corrected").
CORRECTIONS: Table = (
    ("ja", "違います"), ("ja", "違いました"), ("ja", "間違っていました"), ("ja", "間違いでした"),
    ("ja", "間違えました"), ("ja", "誤りでした"), ("ja", "そうではなく"), ("ja", "そうじゃなく"),
    ("ja", "^実は"), ("ja", "^いいえ,"), ("ja", "訂正します"), ("ja", "訂正すると"),
    ("ja", "^正しくは"),
    ("zh", "不对"), ("zh", "不是这样"), ("zh", "我错了"), ("zh", "说错了"), ("zh", "搞错了"),
    ("zh", "纠正一下"), ("zh", "^更正"), ("zh", "^其实"), ("zh", "^实际上"),
    ("es", "^espera,"), ("es", "^en realidad"), ("es", "me equivoqué"),
    ("es", "estaba equivocado"), ("es", "estaba equivocada"), ("es", "eso es incorrecto"),
    ("es", "eso no es cierto"), ("es", "no es correcto"), ("es", "^corrijo"),
    ("de", "^nein,"), ("de", "^moment,"), ("de", "^eigentlich"), ("de", "ich habe mich geirrt"),
    ("de", "ich lag falsch"), ("de", "das ist falsch"), ("de", "das stimmt nicht"),
    ("de", "^korrektur,"), ("de", "ich korrigiere"),
    ("fr", "^non,"), ("fr", "^attends,"), ("fr", "^en fait"), ("fr", "je me suis trompé"),
    ("fr", "je me suis trompée"), ("fr", "c'est faux"), ("fr", "c'est incorrect"),
    ("fr", "ce n'est pas correct"), ("fr", "ce n'est pas ça"),
    ("pt", "^não,"), ("pt", "^espera,"), ("pt", "^na verdade"), ("pt", "me enganei"),
    ("pt", "eu estava errado"), ("pt", "eu estava errada"), ("pt", "isso está errado"),
    ("pt", "está incorreto"), ("pt", "não é isso"), ("pt", "^corrigindo"),
    ("ko", "^아니요,"), ("ko", "^아니요"), ("ko", "^사실은"), ("ko", "제가 틀렸*"),
    ("ko", "틀렸습니다"), ("ko", "잘못 말씀*"), ("ko", "정정합니다"), ("ko", "정정하자면"),
    ("ko", "그게 아니라"),
    ("ru", "^нет,"), ("ru", "^подождите,"), ("ru", "^на самом деле"), ("ru", "я ошибся"),
    ("ru", "я ошиблась"), ("ru", "это неверно"), ("ru", "это неправильно"), ("ru", "это не так"),
    ("ru", "поправлюсь"),
)

# The claim is a guess ("might", "possibly", "I think", "probably").
HEDGES: Table = (
    ("ja", "かもしれない"), ("ja", "かもしれません"), ("ja", "かも知れ"), ("ja", "たぶん"),
    ("ja", "多分"), ("ja", "おそらく"), ("ja", "恐らく"), ("ja", "と思います"), ("ja", "と思う"),
    ("ja", "気がします"), ("ja", "可能性があ"), ("ja", "ようです"), ("ja", "みたいです"),
    ("ja", "と考えられ"), ("ja", "推測"),
    # a reading offered under a condition: "if one reads it as …"
    ("ja", "と解釈すれば"), ("ja", "と解釈すると"), ("ja", "と仮定すれば"), ("ja", "と仮定すると"),
    ("ja", "と考えれば"), ("ja", "とすれば"),
    ("zh", "也许"), ("zh", "或许"), ("zh", "大概"), ("zh", "可能是"), ("zh", "可能会"),
    ("zh", "我觉得"), ("zh", "我认为"), ("zh", "估计"), ("zh", "好像"), ("zh", "似乎"),
    ("es", "quizás"), ("es", "quizá"), ("es", "tal vez"), ("es", "posiblemente"),
    ("es", "probablemente"), ("es", "creo que"), ("es", "puede que"), ("es", "podría ser"),
    ("es", "supongo"), ("es", "parece que"),
    ("de", "vielleicht"), ("de", "möglicherweise"), ("de", "wahrscheinlich"),
    ("de", "vermutlich"), ("de", "ich glaube"), ("de", "ich denke"), ("de", "eventuell"),
    ("de", "scheint"),  # not "könnte": folded, it is "konnte" (was able to)
    ("fr", "peut-être"), ("fr", "probablement"), ("fr", "possiblement"), ("fr", "je pense que"),
    ("fr", "je crois que"), ("fr", "il semble"), ("fr", "sans doute"), ("fr", "il se peut"),
    ("fr", "pourrait"),
    ("pt", "talvez"), ("pt", "provavelmente"), ("pt", "possivelmente"), ("pt", "acho que"),
    ("pt", "pode ser que"), ("pt", "parece que"), ("pt", "suponho"),
    ("ko", "아마"), ("ko", "아마도"), ("ko", "어쩌면"), ("ko", "것 같*"), ("ko", "수도 있*"),
    ("ko", "~지도 모르"), ("ko", "~라고 생각*"), ("ko", "추측*"),
    ("ru", "возможно"), ("ru", "вероятно"), ("ru", "наверное"), ("ru", "может быть"),
    ("ru", "я думаю"), ("ru", "кажется"), ("ru", "по-видимому"), ("ru", "видимо"),
    ("ru", "предположительно"),
)

# A step that did not work ("still doesn't work", "didn't help").
FAILURES: Table = (
    ("ja", "まだ動かない"), ("ja", "まだ動きません"), ("ja", "動きません"), ("ja", "動かない"),
    ("ja", "直っていない"), ("ja", "直っていません"), ("ja", "直りません"), ("ja", "直らない"),
    ("ja", "解決していない"), ("ja", "解決していません"), ("ja", "解決しません"),
    ("ja", "効果がな"), ("ja", "効果がありません"), ("ja", "うまくいかな"),
    ("ja", "うまくいきません"), ("ja", "まだエラー"), ("ja", "まだダメ"), ("ja", "まだだめ"),
    ("ja", "ダメでした"),
    # "does not work / show / apply / change": the verb's negative, however it is praised
    ("ja", "動作していない"), ("ja", "動作していません"), ("ja", "動作しない"),
    ("ja", "動作しません"), ("ja", "機能していない"), ("ja", "機能しない"),
    ("ja", "反映されていない"), ("ja", "反映されない"), ("ja", "反映されません"),
    ("ja", "表示されていない"), ("ja", "表示されない"), ("ja", "表示されません"),
    ("ja", "変わっていない"), ("ja", "変わらない"), ("ja", "変わりません"),
    ("ja", "効いていない"), ("ja", "効かない"),
    ("zh", "还是不行"), ("zh", "仍然不行"), ("zh", "还是不工作"), ("zh", "没有用"),
    ("zh", "不起作用"), ("zh", "没有效果"), ("zh", "还是报错"), ("zh", "仍然报错"),
    ("zh", "还是失败"), ("zh", "没解决"), ("zh", "没有解决"),
    ("zh", "没有生效"), ("zh", "不生效"), ("zh", "没有反应"), ("zh", "不显示"), ("zh", "没有变化"),
    ("es", "sigue sin funcionar"), ("es", "todavía no funciona"), ("es", "aún no funciona"),
    ("es", "no funciona"), ("es", "no ayudó"), ("es", "no sirvió"), ("es", "sigue fallando"),
    ("es", "no lo arregló"), ("es", "no se solucionó"),
    ("de", "funktioniert immer noch nicht"), ("de", "funktioniert noch nicht"),
    ("de", "funktioniert nicht"), ("de", "hat nicht geholfen"), ("de", "hilft nicht"),
    ("de", "schlägt immer noch fehl"), ("de", "immer noch kaputt"),
    ("fr", "ne fonctionne toujours pas"), ("fr", "ne marche toujours pas"),
    ("fr", "ne fonctionne pas"), ("fr", "ne marche pas"), ("fr", "n'a pas aidé"),
    ("fr", "n'a pas marché"), ("fr", "n'a pas fonctionné"), ("fr", "échoue toujours"),
    ("fr", "toujours cassé"),
    ("pt", "ainda não funciona"), ("pt", "não funciona"), ("pt", "não funcionou"),
    ("pt", "não ajudou"), ("pt", "não resolveu"), ("pt", "continua falhando"),
    ("pt", "continua dando erro"), ("pt", "ainda dá erro"),
    ("ko", "여전히 안 됩*"), ("ko", "여전히 안 돼*"), ("ko", "아직도 안 돼*"),
    ("ko", "아직도 안 됩*"),
    ("ko", "작동하지 않*"), ("ko", "도움이 안*"), ("ko", "해결되지 않*"), ("ko", "여전히 실패*"),
    ("ko", "여전히 오류*"),
    ("ru", "всё ещё не работает"), ("ru", "до сих пор не работает"), ("ru", "не работает"),
    ("ru", "не помогло"), ("ru", "не сработало"), ("ru", "всё ещё падает"),
)

# A claim that something works or is fixed: what a later failure refutes.
SUCCESSES: Table = (
    ("ja", "修正しました"), ("ja", "直りました"), ("ja", "解決しました"), ("ja", "動作します"),
    ("ja", "動きます"), ("ja", "動くように"), ("ja", "動作するように"),
    ("ja", "動いてます"), ("ja", "動いています"), ("ja", "正常に動作"), ("ja", "成功しました"),
    ("zh", "修复了"), ("zh", "已修复"), ("zh", "解决了"), ("zh", "已解决"), ("zh", "可以正常"),
    ("es", "funciona"), ("es", "arreglado"), ("es", "solucionado"), ("es", "corregido"),
    ("de", "funktioniert"), ("de", "behoben"), ("de", "gelöst"),
    ("fr", "fonctionne"), ("fr", "marche"), ("fr", "corrigé"), ("fr", "résolu"),
    ("pt", "funciona"), ("pt", "corrigido"), ("pt", "resolvido"),
    ("ko", "작동합니다"), ("ko", "해결되었습니다"), ("ko", "수정했습니다"), ("ko", "고쳤습니다"),
    ("ru", "работает"), ("ru", "исправлено"), ("ru", "исправил*"), ("ru", "починил*"),
)

_SUBSTRING_LANGS = frozenset({"ja", "zh"})
# What turns a CJK cue into its opposite just before it: 不可能是 is "cannot be".
_NOT_AFTER = {"可能是": "(?<!不)", "可能会": "(?<!不)"}
_KANA = re.compile(r"[\u3040-\u30ff]")
_START = r"(?:^|(?<=[.!?;:¶。！？\n]))\s*"
_AFTER = r"(?=\s*[,.!:;—、，。！？-])"


def fold(text: str) -> str:
    """A normalised text with Latin and Cyrillic accents dropped, one character for one
    (so a match's offsets are the text's): "möglicherweise" → "moglicherweise", "всё" →
    "все". Kana voicing marks and Hangul stay as they are."""
    return _ACCENTED.sub(lambda m: _bare(m.group()), text)


_ACCENTED = re.compile(r"[\u00c0-\u024f\u0400-\u04ff\u1e00-\u1eff]")


@functools.cache
def _bare(ch: str) -> str:
    parts = unicodedata.normalize("NFD", ch)
    accented = len(parts) > 1 and all("\u0300" <= c <= "\u036f" for c in parts[1:])
    return parts[0] if accented else ch


def _pattern(lang: str, phrase: str) -> str:
    start = phrase.startswith("^")
    after = phrase.endswith(",")
    stem = phrase.endswith("*")
    anywhere = phrase.startswith("~")
    core = fold(normalise(phrase.strip("^~,*")))
    body = r"\s+".join(re.escape(w) for w in core.split())
    if lang in _SUBSTRING_LANGS or anywhere:
        left, right = _NOT_AFTER.get(core, ""), ""
    else:
        left, right = r"(?<![\w'-])", "" if stem else r"(?![\w'-])"
    return (_START if start else left) + body + right + (_AFTER if after else "")


def _group(lang: str, phrase: str) -> str:
    """Which texts a cue applies to: a Chinese one to text without kana, a Japanese one
    of kanji alone (多分, also "-odd" in Chinese 十多分钟) to text with kana; a cue of
    a Latin-script language to any text, the others to text in their scripts."""
    if lang == "zh":
        return "no_kana"
    if lang == "ja" and not _KANA.search(phrase):
        return "kana"
    return "latin" if lang in _LATIN_LANGS else "script"


_LATIN_LANGS = frozenset({"es", "de", "fr", "pt"})
_SCRIPTS = re.compile(r"[\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]")
_TOKEN = re.compile(r"[\w'-]+")


@dataclass(frozen=True)
class _Compiled:
    groups: dict[str, re.Pattern[str]]
    firsts: frozenset[str]  # the longest word of each Latin-script cue: no word, no cue


def _compile(table: Table) -> _Compiled:
    groups: dict[str, list[str]] = {}
    firsts = set()
    for lang, phrase in table:
        group = _group(lang, phrase)
        groups.setdefault(group, []).append(_pattern(lang, phrase))
        if group == "latin":
            assert not phrase.endswith("*") and not phrase.startswith("~"), phrase
            firsts.add(max(fold(normalise(phrase.strip("^~,*"))).split(), key=len))
    return _Compiled({g: re.compile("|".join(ps)) for g, ps in groups.items()},
                     frozenset(firsts))


_COMPILED: dict[int, _Compiled] = {}


def find(table: Table, text: str) -> list[tuple[int, int]]:
    """Where the table's cues stand in a normalised text: (start, end) of each."""
    if id(table) not in _COMPILED:
        _COMPILED[id(table)] = _compile(table)
    return list(_find(id(table), text))


@functools.lru_cache(maxsize=4096)
def _find(table: int, text: str) -> tuple[tuple[int, int], ...]:
    """Cached: every candidate of a job reads the same later turns for its cues. Only
    the groups the text can hold are searched (most texts hold none)."""
    compiled = _COMPILED[table]
    folded = fold(text)
    spans = []
    if "latin" in compiled.groups and compiled.firsts & set(_TOKEN.findall(folded)):
        spans += [m.span() for m in compiled.groups["latin"].finditer(folded)]
    if _SCRIPTS.search(folded):
        kana = bool(_KANA.search(folded))
        for group, rx in compiled.groups.items():
            if group == "script" or (group == "kana" and kana) or (
                    group == "no_kana" and not kana):
                spans += [m.span() for m in rx.finditer(folded)]
    return tuple(sorted(spans))


def says(table: Table, text: str) -> bool:
    """Does a normalised text hold one of the table's cues?"""
    return bool(find(table, text))
