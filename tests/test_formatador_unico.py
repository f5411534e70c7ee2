"""Um formatador só (issue 47): nenhuma página monta um sobrescrito nem formata com o ponto
e o "e" do Python; as duas coisas passam por `livro.formato` (potencia10, cientifico)."""
import re

import pytest

from conftest import RAIZ
from livro.formato import potencia10

FORA = [
    (re.compile(r"maketrans\("), "sobrescrito feito à mão (use potencia10 ou cientifico)"),
    (re.compile(r":[+\- ]?\d*(\.\d+)?[eEgG]\}"), "formato do Python com expoente (use cientifico)"),
    (re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]\"\s*\)"), "sobrescrito digitado"),
]


def test_paginas_sem_formatador_proprio():
    achados = []
    for md in sorted((RAIZ / "book").glob("*.md")):
        for n, linha in enumerate(md.read_text(encoding="utf-8").splitlines(), 1):
            for padrao, motivo in FORA:
                if padrao.search(linha):
                    achados.append(f"{md.name}:{n}: {motivo}: {linha.strip()[:80]}")
    assert achados == []


@pytest.mark.parametrize("e,esperado", [(-5, "10⁻⁵"), (0, "10⁰"), (12, "10¹²"), (-12, "10⁻¹²")])
def test_potencia10(e, esperado):
    assert potencia10(e) == esperado


@pytest.mark.parametrize("ruim", [1.0, True, "3", None])
def test_potencia10_recusa(ruim):
    with pytest.raises(TypeError, match="inteiro"):
        potencia10(ruim)
