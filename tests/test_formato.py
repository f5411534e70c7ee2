"""O formatador (lab/formato.py) nas bordas que as páginas e os widgets usam.

Os doctests do módulo mostram os casos comuns; aqui ficam as bordas: o "-0,000" que não
pode aparecer, o sinal dos inteiros, a mantissa que arredonda para 10, as unidades exatas.
"""
import math

import pytest


from livro import formato as f


@pytest.mark.parametrize("x,casas,esperado", [
    (-0.0001, 3, "0,000"), (-0.0, 3, "0,000"), (-0.0004, 1, "0,0"), (-0.0006, 3, "-0,001"),
    (1234567.891, 2, "1.234.567,89"), (-1234.5, 1, "-1.234,5"), (999.9996, 3, "1.000,000"),
])
def test_num(x, casas, esperado):
    assert f.num(x, casas) == esperado


@pytest.mark.parametrize("n,esperado", [(0, "0"), (999, "999"), (1000, "1.000"), (-7087872, "-7.087.872"),
                                        (124439808, "124.439.808"), (-5, "-5")])
def test_inteiro(n, esperado):
    assert f.inteiro(n) == esperado


@pytest.mark.parametrize("x,esperado", [(2.0, "2"), (0.5, "0,5"), (-1.25, "-1,25"), (0.0004, "0"), (10.0, "10")])
def test_casas_min(x, esperado):
    assert f.casas_min(x) == esperado


@pytest.mark.parametrize("x,esperado", [(1e14, "10¹⁴"), (9.96e22, "10²³"), (5.88e23, "5,9 · 10²³"),
                                        (1.5e-4, "1,5 · 10⁻⁴"), (-2e6, "-2,0 · 10⁶"), (0, "0")])
def test_cientifico(x, esperado):
    assert f.cientifico(x) == esperado


@pytest.mark.parametrize("x,esperado", [(1e9, "1B"), (1e6, "1M"), (1e12, "1T"), (1.4e12, "1,4T"),
                                        (177.2e6, "177,2M"), (999, "999")])
def test_abreviado(x, esperado):
    assert f.abreviado(x) == esperado


def test_porcentagens_memoria_contagens_celulas():
    assert f.pct(0.666) == "67%" and f.pct(0.455, 1) == "45,5%"
    assert [f.pct_pequeno(x) for x in (0.3, 0.005, 0.00005)] == ["30%", "0,50%", "< 0,01%"]
    assert [f.bytes_bin(n) for n in (2 ** 20, 1536, 512, 37748736)] == ["1 MiB", "1,5 KiB", "512 B", "36 MiB"]
    assert [f.contagem(n, "token") for n in (0, 1, 2, 1024)] == ["0 tokens", "1 token", "2 tokens", "1.024 tokens"]
    assert f.celula(-math.inf) == "-∞" and f.celula(-0.5) == "-0,500"
    assert f.tex(-0.739) == "{-}0{,}739" and f.tex_vetor([0.5, -1], 1) == r"[0{,}5;\ {-}1{,}0]"
    assert f.vetor([-0.5, 1.5], 1) == "[-0,5; 1,5]" and f.vetor_min([0.5, -1.0]) == "[0,5; -1]"
    assert f.forma(5, 50257) == "5\u00a0×\u00a050.257"
