"""O que a issue 19 corrigiu nas páginas do bloco, lido no site construído."""
import re

import pytest


def _texto(build, pagina):
    s = (build / "html" / "book" / f"{pagina}.html").read_text(encoding="utf-8")
    s = s[s.find("<article"):s.rfind("</article>")]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", s))


def test_derivada_da_gelu_zera_num_ponto_so(build):
    t = _texto(build, "por_que_bloco")
    assert "não se anula nos negativos" not in t and "menor que 1 no lado positivo" not in t
    # a fórmula (z) vem desenhada no build: o texto tem "se anula num ponto só," e o número logo depois
    assert re.search(r"se anula num ponto só, .{0,2000}?= -0,752", t)
    assert "máximo, 1,129" in t and "1,083" in t


def test_uma_medida_repetida_nao_vira_faixa(build):
    t = _texto(build, "bloco")
    assert not re.search(r"medem de (\S+) a \1", t)
    assert "todas medem 2,000" in t


@pytest.mark.parametrize("pagina", ["bloco", "por_que_bloco", "desde_2017", "glossario", "laboratorio"])
def test_uma_so_convencao_para_a_gelu(build, pagina):
    s = (build / "html" / "book" / f"{pagina}.html").read_text(encoding="utf-8")
    assert "\\operatorname{gelu}" not in s and "\\text{gelu}" not in s


def test_explainer_no_laboratorio_e_tabelas_contadas_uma_vez(build):
    html = {p.stem: p.read_text(encoding="utf-8") for p in (build / "html" / "book").glob("*.html")}
    assert 'id="o-transformer-explainer"' in html["laboratorio"]
    assert "Vá e experimente" not in html["bloco"] and "Três tarefas" not in html["bloco"]
    com_lens = [p for p, s in html.items() if p != "numeros" and "<p>posição de ␣visualize</p>" in s]
    assert com_lens == ["por_que_bloco"]
    # o experimento pré-LN × pós-LN em detalhe só em desde_2017 (as outras páginas apontam para lá)
    contado = [p for p, s in html.items() if p != "numeros" and "empaca no chute ao acaso" in s]
    assert contado == ["desde_2017"]


def test_swiglu_hoje_nao_e_uma_largura_so(build):
    t = _texto(build, "desde_2017")
    assert "d_{ff} \\approx 8d/3" not in t
    assert "de 2,7 a 5,3 vezes" in t and "14.336" in t and "18.944" in t
