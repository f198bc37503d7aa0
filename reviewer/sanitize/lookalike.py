"""What a reviewer should look at twice before approving: text shaped like an order to the
model, and words whose letters are not what they look like.

Flags, never edits: the person decides. Shown in the review pane beside the fact.

- **Instruction-shaped** (`instruction_flags`): a fact is a statement about the project;
  one that addresses the model ("ignore all previous instructions", "IMPORTANT SYSTEM
  NOTE", "you must now…", "do not tell the user") or fakes a role or system marker is a
  prompt-injection payload waiting for approval.
- **Lookalikes** (`lookalike_flags`): a word mixing scripts (Latin `pаypal` with a
  Cyrillic `а`), a whole word in Cyrillic or Greek letters that all look Latin, inside
  Latin text (`рурі` for `pypi`), and compatibility letters NFKC would change (fullwidth
  `ｎｐｍ`, mathematical `𝐩𝐢𝐩`). Package names and domains are where this bites.

Built on `unicodedata` (the running Python's Unicode database): a letter's script is the
first word of its Unicode name, which is exact for the scripts that matter here (Latin,
Cyrillic, Greek, Armenian, Cherokee...). The lookalike table is the subset of Unicode's
confusables data (UTS #39 `confusables.txt`) that maps a Cyrillic, Greek or Armenian
letter to one Latin letter. Compared with `confusable_homoglyphs` 3.3.1 (PyPI, last
release 2024-01, a 1 MB data file; `is_dangerous` per word) on 10 lookalike package
names / domains and 10 ordinary texts (a small hand-made set, not held out): this caught
10/10 and flagged 1/10 ordinary ("αβ" in English text), the library 7/10 and 1/10
(Japanese text), at 8 vs 19 µs a text. The library misses whole-word lookalikes (`рурі`)
and compatibility letters (`ｎｐｍ`), so the stdlib table stays.
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[^\W\d_](?:[\w.\-]*\w)?")
# Cyrillic, Greek and Armenian letters drawn like a Latin letter (from UTS #39).
LOOKS_LATIN = frozenset(
    "аеіјосрхуѕһԁԛԝӏәɡвкмнтгпьАВЕЅІЈКМНОРСТХУԜӀ"
    "αβεικνορτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"
    "ոսօհացզ"
)
_INSTRUCTION = [
    (re.compile(p, re.IGNORECASE), why) for p, why in (
        (r"\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|earlier|"
         r"all|other|your)\b[^.\n]{0,30}\b(instructions?|rules?|prompts?|guidelines?|"
         r"directions?)", "tells the model to ignore its instructions"),
        (r"\b(system|developer|admin)\s+(note|prompt|message|override|instructions?)\s*[:!]"
         r"|(?-i:\b(SYSTEM|DEVELOPER|ADMIN)\s+(NOTE|PROMPT|MESSAGE|OVERRIDE)\b)",
         "poses as a system message"),
        (r"^\s*(important|attention|note to (the )?(ai|assistant|model|claude))\b\s*[:!]",
         "opens like an order"),
        (r"\b(you|claude|the assistant|the model|ai)\s+(must|should|shall|will)\s+(now\s+)?"
         r"(always|never|ignore|run|execute|delete|send|upload|include|tell|not)\b",
         "addresses the model with an order"),
        (r"\b(do not|don't|never)\s+(tell|inform|mention|show|reveal)\b[^.\n]{0,20}\b(user|"
         r"person|human|reviewer)", "asks to hide something from the person"),
        (r"</?\s*(system|assistant|user|instructions?|im_start|im_end)\s*>|^\s*(system|"
         r"assistant|human)\s*:", "fakes a role or system marker"),
        (r"\b(curl|wget)\b[^|\n]{0,200}\|\s*(ba|z)?sh\b", "pipes a download into a shell"),
    )
]


def instruction_flags(text: str) -> list[str]:
    """Why `text` reads like an order to the model rather than a note (empty: it does not)."""
    return [why for pattern, why in _INSTRUCTION if pattern.search(text)]


def _script(ch: str) -> str | None:
    if not ch.isalpha():
        return None
    name = unicodedata.name(ch, "")
    return name.split(" ", 1)[0] if name else None


def lookalike_flags(text: str) -> list[str]:
    """Words whose letters are not what they seem, each with the reason."""
    out: list[str] = []
    words = _WORD.findall(text)
    latin_text = sum(1 for w in words if _script(w[0]) == "LATIN") * 2 > len(words)
    for word in words:
        scripts = {s for s in map(_script, word) if s}
        if len(scripts) > 1 and "LATIN" in scripts:
            out.append(f"“{word}” mixes {' and '.join(sorted(s.title() for s in scripts))} "
                       "letters")
        elif (latin_text and scripts and scripts <= {"CYRILLIC", "GREEK", "ARMENIAN"}
              and all(c in LOOKS_LATIN for c in word if c.isalpha())):
            out.append(f"“{word}” is written in {' and '.join(s.title() for s in scripts)} "
                       "letters that look Latin")
        elif unicodedata.normalize("NFKC", word) != word and any(
                unicodedata.normalize("NFKC", c) != c and c.isalpha() for c in word):
            out.append(f"“{word}” uses compatibility letters (it reads as "
                       f"“{unicodedata.normalize('NFKC', word)}”)")
        if len(out) >= 10:
            break
    return out


def review_flags(text: str) -> list[str]:
    """Everything a reviewer should look at twice in a fact."""
    return ([f"instruction-shaped: {why}" for why in instruction_flags(text)]
            + [f"lookalike letters: {why}" for why in lookalike_flags(text)])
