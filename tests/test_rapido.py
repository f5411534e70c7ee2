"""A razão rápida (book/_ext/rapido.py) é a mesma do build, e a página de números aponta
para a linha que de fato colou cada valor.

A razão rápida roda o código das páginas sem o Sphinx e, ao colar, anota de que linha de
que célula veio cada chave. Isso dá duas garantias:
- ela é uma trava de verdade (mesmos valores que o build, byte a byte);
- a leitura estática de razao.py (a que a página para instrutores usa) acha, para cada
  chave, a mesma linha que a execução mostra.
"""
import pytest

from livro_ext import rapido
from livro_ext import razao
from livro_ext import razao_pagina

from conftest import RAIZ

pytestmark = pytest.mark.lento  # roda o código de todas as páginas (como o make trava-rapida)

@pytest.fixture(scope="module")
def rapida():
    return rapido.executar(rapido.paginas())


def test_razao_rapida_igual_a_do_build(build, rapida):
    nova, problemas = rapido.razao_rapida(rapida)
    assert problemas == []
    do_build = razao.coletar(build)
    linhas = razao.diferencas(do_build, nova)
    assert not linhas, "a razão rápida difere da do build:\n" + "\n".join(linhas[:40])
    assert razao.serializa(nova) == razao.serializa(do_build)


def test_razao_rapida_confere_com_o_lock(rapida):
    assert rapido.comparar(rapida) == []


def test_cada_chave_vem_da_linha_que_a_pagina_de_numeros_mostra(rapida):
    from myst_nb.core.read import read_myst_markdown_notebook

    erradas, total = [], 0
    for pagina, res in rapida.items():
        texto = (RAIZ / (pagina + ".md")).read_text(encoding="utf-8")
        nb = read_myst_markdown_notebook(texto)
        v = razao.Varredor()
        fontes = {"__glue__": []}
        n = 0
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            n += 1
            for padrao, linha, _ in v.celula(cell.source):
                fontes["__glue__"].append((padrao, (n, linha), ""))
        for chave, origem in res["origens"].items():
            total += 1
            achado, _ = razao_pagina.onde_calcula(fontes, chave)
            if achado != tuple(origem):
                erradas.append(f"{pagina} · {chave}: a execução diz célula {origem[0]}, linha {origem[1]};"
                               f" a leitura diz {achado}")
    assert total > 700
    assert not erradas, f"{len(erradas)} de {total}:\n" + "\n".join(erradas[:30])


def test_pagina_que_quebra_vira_diferenca(tmp_path):
    """Um brinquedo que não importa: cada página vira uma linha `!`, e nada trava."""
    ruim = tmp_path / "brinquedo.py"
    ruim.write_text("raise RuntimeError('brinquedo quebrado de propósito')\n", encoding="utf-8")
    md = RAIZ / "book" / "saida.md"
    res = rapido.executar([md], str(ruim))
    linhas = rapido.comparar(res)
    assert linhas[0].startswith("! book/saida: a página não rodou:")
    assert "brinquedo quebrado de propósito" in linhas[0]


def test_make_lock_grava_os_numeros_das_fontes_de_agora(tmp_path):
    """`make lock` (rapido.py --aceitar) calcula a razão das fontes atuais: uma mudança em lab/
    aparece no lock na hora, sem depender de um _build velho."""
    lock = tmp_path / "lock.json"
    lock.write_text((RAIZ / "book" / "numeros.lock.json").read_text(encoding="utf-8"), encoding="utf-8")
    outro = tmp_path / "brinquedo.py"
    fonte = (RAIZ / "lab" / "livro" / "brinquedo.py").read_text(encoding="utf-8")
    assert "EPS = 1e-5" in fonte
    outro.write_text(fonte.replace("EPS = 1e-5", "EPS = 1e-1"), encoding="utf-8")
    md = str(RAIZ / "book" / "saida.md")
    assert rapido.main([md, "--brinquedo", str(outro), "--lock", str(lock), "--aceitar"]) == 0
    novo, velho = razao.ler_lock(lock), razao.ler_lock()
    assert novo["book/saida"] != velho["book/saida"]            # os números novos entraram
    assert {p: v for p, v in novo.items() if p != "book/saida"} == \
        {p: v for p, v in velho.items() if p != "book/saida"}   # as outras páginas ficaram
    # e a trava rápida, contra o lock novo, confere com o brinquedo mudado
    assert rapido.main([md, "--brinquedo", str(outro), "--lock", str(lock)]) == 0


def test_aceitar_recusa_pagina_que_nao_roda(tmp_path):
    lock = tmp_path / "lock.json"
    lock.write_text("{}\n", encoding="utf-8")
    ruim = tmp_path / "brinquedo.py"
    ruim.write_text("raise RuntimeError('quebrado')\n", encoding="utf-8")
    md = str(RAIZ / "book" / "saida.md")
    assert rapido.main([md, "--brinquedo", str(ruim), "--lock", str(lock), "--aceitar"]) == 1
    assert lock.read_text(encoding="utf-8") == "{}\n"
