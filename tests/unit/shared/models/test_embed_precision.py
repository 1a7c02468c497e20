from shared.models.embedder import resolve_precision


def test_auto_takes_bfloat16_only_where_the_cpu_has_it() -> None:
    assert resolve_precision("auto", native_bfloat16=True) == "bfloat16"
    assert resolve_precision("auto", native_bfloat16=False) == "float32"


def test_an_explicit_precision_is_kept_whatever_the_cpu() -> None:
    assert resolve_precision("float32", native_bfloat16=True) == "float32"
    assert resolve_precision("bfloat16", native_bfloat16=False) == "bfloat16"
