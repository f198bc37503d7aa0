"""Hedges, corrections and failures said in other languages than English (issue 21): the
cue tables of capture/verify/cues.py on small conversations in Japanese, Chinese,
Spanish, German, French, Portuguese, Korean and Russian, and true facts in the same
languages that must stay unflagged and unhinted."""

from __future__ import annotations

import pytest
from records import convo

from capture.ground import normalise
from capture.verify import cues, verify

HEDGED = [  # (language, a hedged quote, the same claim stated as found)
    ("ja", "原因は cache_ttl の設定かもしれません", "原因は cache_ttl の設定です"),
    ("ja", "たぶん cache_ttl が短すぎます", "cache_ttl が短すぎます"),
    ("zh", "问题也许是 cache_ttl 太短", "问题是 cache_ttl 太短"),
    ("zh", "这可能是 cache_ttl 的问题", "这是 cache_ttl 的问题"),
    ("es", "Quizás el problema es cache_ttl", "El problema es cache_ttl"),
    ("de", "Vielleicht ist cache_ttl zu kurz", "cache_ttl ist zu kurz"),
    ("fr", "Peut-être que cache_ttl est trop court", "cache_ttl est trop court"),
    ("pt", "Talvez o cache_ttl seja curto demais", "O cache_ttl é curto demais"),
    ("ko", "아마 cache_ttl 설정이 문제입니다", "cache_ttl 설정이 문제입니다"),
    ("ru", "Возможно, cache_ttl слишком короткий", "cache_ttl слишком короткий"),
]


@pytest.mark.parametrize(("lang", "guess", "plain"), HEDGED)
def test_a_hedge_in_another_language_is_a_hint(lang: str, guess: str, plain: str) -> None:
    fact = "The cause is that cache_ttl is too short."
    got = verify(fact, guess, convo(("assistant", guess + "。" if lang in "jazh" else guess)))
    assert (got.supported, got.hint) == (True, "hedged"), lang
    found = verify(fact, plain, convo(("assistant", plain)))
    assert (found.supported, found.check, found.hint) == (True, None, None), lang


def test_a_hedge_left_out_of_a_japanese_quote_is_a_hint() -> None:
    said = "ログを見ると、原因は cache_ttl の設定かもしれません。再起動で直ります。"
    got = verify("The cause is the cache_ttl setting.", "原因は cache_ttl の設定",
                 convo(("assistant", said)))
    assert (got.supported, got.hint) == (True, "hedged")
    assert "かもしれません" in got.hint_detail
    plain = "ログを見ると、原因は cache_ttl の設定です。再起動で直ります。"
    assert verify("The cause is the cache_ttl setting.", "原因は cache_ttl の設定",
                  convo(("assistant", plain))).hint is None


@pytest.mark.parametrize("text", [
    "この機能は利用可能です",  # 可能 is "possible", not "maybe", in Japanese
    "アマゾンの S3 を使います",
    "아마존 S3 버킷을 사용합니다",  # 아마존 (Amazon) is not 아마 (maybe)
    "Die Datei konnte nicht gelesen werden",  # konnte: was able to, not könnte
    "Le serveur non-bloquant démarre",
    "No se encontró el archivo",
    "Das Ergebnis ist eindeutig",
    "这不可能是缓存的问题",  # 不可能是: cannot be
    "构建花了十多分钟",  # 多分 is "maybe" only in Japanese
])
def test_words_that_only_look_like_cues_are_none(text: str) -> None:
    low = normalise(text)
    assert not cues.says(cues.HEDGES, low)
    assert not cues.says(cues.CORRECTIONS, low)
    assert not cues.says(cues.FAILURES, low)


def test_cues_are_matched_without_case_or_accents() -> None:
    for text in ("MÖGLICHERWEISE liegt es am Cache", "moglicherweise", "Peut-etre que",
                 "QUIZAS", "Всё ещё не работает", "все еще не работает"):
        low = normalise(text)
        assert cues.says(cues.HEDGES, low) or cues.says(cues.FAILURES, low), text
    assert cues.find(cues.HEDGES, normalise("Ja, vielleicht.")) == [(4, 14)]


CORRECTED = [  # (language, a later turn that corrects the claim about load_config)
    ("ja", "違います。load_config は起動時には呼ばれていません。"),
    ("ja", "実は load_config は起動時には呼ばれていません。"),
    ("zh", "不对，load_config 在启动时没有被调用。"),
    ("es", "Me equivoqué: load_config no se llama al arrancar."),
    ("de", "Nein, load_config wird beim Start nicht aufgerufen."),
    ("fr", "En fait, load_config n'est pas appelée au démarrage."),
    ("pt", "Na verdade, load_config não é chamada na inicialização."),
    ("ko", "제가 틀렸습니다. load_config는 시작할 때 호출되지 않습니다."),
    ("ru", "Нет, load_config не вызывается при запуске."),
]


@pytest.mark.parametrize(("lang", "later"), CORRECTED)
def test_a_correction_in_another_language_is_a_hint(lang: str, later: str) -> None:
    quote = "load_config reads settings.toml at startup"
    fact = "load_config reads settings.toml at startup."
    got = verify(fact, quote, convo(("assistant", quote + "."), ("user", "ok"),
                                    ("assistant", later)))
    assert (got.supported, got.hint) == (True, "corrected_later"), lang
    assert later[:12] in got.hint_detail


@pytest.mark.parametrize(("lang", "later"), [
    ("ja", "違います。render_page のテストが古いだけです。"),  # a correction of something else
    ("de", "Nein, render_page braucht keinen Cache."),
    ("ja", "load_config は起動時に settings.toml を読みます。"),  # the same, no cue
    ("fr", "Oui, load_config lit settings.toml au démarrage."),
])
def test_a_true_fact_stays_unhinted_in_another_language(lang: str, later: str) -> None:
    quote = "load_config reads settings.toml at startup"
    got = verify("load_config reads settings.toml at startup.", quote,
                 convo(("assistant", quote + "."), ("user", "ok"), ("assistant", later)))
    assert (got.supported, got.check, got.hint) == (True, None, None), lang


@pytest.mark.parametrize(("lang", "report"), [
    ("ja", "sync_worker はまだ動かないです。同じエラーが出ます。"),
    ("zh", "sync_worker 还是不行，同样的错误。"),
    ("es", "sync_worker sigue sin funcionar."),
    ("de", "Der Fix hat nicht geholfen, sync_worker stürzt ab."),
    ("fr", "sync_worker ne fonctionne toujours pas."),
    ("pt", "O sync_worker ainda não funciona."),
    ("ko", "sync_worker가 여전히 안 됩니다."),
    ("ru", "sync_worker всё ещё не работает."),
])
def test_a_fix_the_person_says_still_fails_is_a_hint(lang: str, report: str) -> None:
    quote = "I fixed the retry loop in sync_worker, so uploads now work"
    fact = "The retry loop fix in sync_worker made uploads work."
    chat = convo(("assistant", quote + "."), ("user", report))
    got = verify(fact, quote, chat)
    assert (got.supported, got.hint) == (True, "corrected_later"), lang
    # The same failure words of a fact that claims nothing works refute nothing.
    finding = "sync_worker retries each upload three times"
    assert verify("sync_worker retries each upload three times.", finding,
                  convo(("assistant", finding + "."), ("user", report))).hint is None, lang
