"""O leitor de imports do build (livro_ext/execucao/importacoes.py) e os resultados guardados pelo hash.

Três peças perguntam o que um código importa (a chave do cache de execução, o que vai para
o navegador e para os notebooks, o que o Colab instala): todas leem do mesmo leitor, e cada
uma vê o seu recorte. E dois passos do build que sempre dão a mesma saída para a mesma
entrada (a varredura das páginas para a página de números, o subconjunto dos ícones) ficam
guardados (guardado.py): o guardado tem de dar exatamente o que a conta dá.
"""
import doctest
from pathlib import Path

import pytest

from livro_ext.execucao import chave_cache, guardado, importacoes
from livro_ext.tema import icones
from livro_ext.notebooks import notebooks
from livro_ext.trava import razao_pagina
from livro_ext.execucao.importacoes import Importacao

RAIZ = Path(__file__).resolve().parents[1]

CODIGO = """\
import os.path as caminho, numpy
from livro import brinquedo, formato
from .vizinho import algo
%matplotlib inline
!pip install nada
try:
    import opcional_a
    from opcional_b import x
except (ImportError, ValueError):
    import plano_b
else:
    import depois_do_try
finally:
    import sempre
try:
    import sem_tratar_import
except KeyError:
    pass
def f():
    import dentro_de_funcao
    return importlib.util.find_spec("pedido.pelo_nome")
match 1:
    case 1:
        import num_caso
"""


@pytest.mark.parametrize("modulo", [importacoes], ids=lambda m: m.__name__)
def test_doctests_das_extensoes(modulo):
    r = doctest.testmod(modulo)
    assert r.attempted > 0 and r.failed == 0


def test_cada_import_com_o_seu_opcional():
    vistos = importacoes.importacoes(CODIGO)
    assert vistos == (
        Importacao("import", "os.path", (), 0, False),
        Importacao("import", "numpy", (), 0, False),
        Importacao("from", "livro", ("brinquedo", "formato"), 0, False),
        Importacao("from", "vizinho", ("algo",), 1, False),
        Importacao("import", "opcional_a", (), 0, True),
        Importacao("from", "opcional_b", ("x",), 0, True),
        Importacao("import", "plano_b", (), 0, False),          # o except roda sem o import
        Importacao("import", "depois_do_try", (), 0, False),    # o else e o finally também
        Importacao("import", "sempre", (), 0, False),
        Importacao("import", "sem_tratar_import", (), 0, False),  # KeyError não é um ImportError
        Importacao("import", "dentro_de_funcao", (), 0, False),
        Importacao("find_spec", "pedido.pelo_nome", (), 0, False),
        Importacao("import", "num_caso", (), 0, False),
    )
    assert importacoes.importacoes("isto não é Python (") == ()


def test_cada_peca_ve_o_seu_recorte():
    # o Colab instala os de fora: nem a biblioteca padrão, nem o livro, nem os opcionais
    assert notebooks.modulos_externos([CODIGO]) == {
        "numpy", "plano_b", "depois_do_try", "sempre", "sem_tratar_import", "dentro_de_funcao",
        "pedido", "num_caso"}
    # o fecho (a chave do cache e o navegador): o submódulo de `from livro import x` quando existe, os de
    # fora pelo nome de cima; find_spec não é um import do código, e o relativo sem pacote fica de fora
    modulos, fora = importacoes.fecho([CODIGO], RAIZ / "lab")
    assert {"livro", "livro.brinquedo", "livro.formato"} <= set(modulos)
    assert {"os", "numpy", "opcional_a", "plano_b", "dentro_de_funcao"} <= set(fora)
    assert not {"pedido", "vizinho", "os.path"} & set(fora)
    modulos, fora = importacoes.fecho(["from livro.formato import num"], RAIZ / "lab")
    assert "livro.formato.num" not in modulos and "livro.formato.num" not in fora
    # a chave do cache de execução: os módulos de lab/ importados, direta ou indiretamente
    arquivos = chave_cache.modulos_do_lab(["from livro import paginas"])
    assert RAIZ / "lab" / "livro" / "formato.py" in arquivos   # paginas.py importa o formatador


def test_varredura_das_paginas_guardada_e_igual_a_conta(tmp_path, monkeypatch):
    pagina = RAIZ / "book" / "mascaras.md"
    monkeypatch.setenv("LIVRO_SEM_GUARDADO", "1")
    conta = razao_pagina.codigo_das_chaves(pagina)
    monkeypatch.delenv("LIVRO_SEM_GUARDADO")
    monkeypatch.setattr(guardado, "PASTA", tmp_path)
    assert razao_pagina.codigo_das_chaves(pagina) == conta          # conta e guarda
    assert len(list((tmp_path / "livro-razao").iterdir())) == 1
    assert razao_pagina.codigo_das_chaves(pagina) == conta          # lê do guardado
    assert any(k.startswith("celula:") for k in conta) and conta["__glue__"]


@pytest.mark.parametrize("nome", icones.FONTES)
def test_subconjunto_dos_icones_guardado_tem_os_mesmos_bytes(nome, tmp_path, monkeypatch):
    import pydata_sphinx_theme

    ttf = (Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"
           / "vendor" / "fontawesome" / "webfonts" / f"{nome}.ttf")
    codigos = {0xF015, 0xF002, 0xF09B, 0xF065, 0xF019}     # casa, lupa, github, expandir, baixar
    monkeypatch.setenv("LIVRO_SEM_GUARDADO", "1")
    n = icones.subconjunto(ttf, tmp_path / "conta.woff", codigos)
    monkeypatch.delenv("LIVRO_SEM_GUARDADO")
    monkeypatch.setattr(guardado, "PASTA", tmp_path / "cache")
    assert icones.subconjunto(ttf, tmp_path / "1.woff", codigos) == n
    assert icones.subconjunto(ttf, tmp_path / "2.woff", codigos) == n     # do guardado
    conta = (tmp_path / "conta.woff").read_bytes()
    assert (tmp_path / "1.woff").read_bytes() == conta == (tmp_path / "2.woff").read_bytes()
    assert len(list((tmp_path / "cache" / "livro-icones").iterdir())) == 1


def test_um_resolvedor_para_a_chave_do_cache_e_o_navegador(tmp_path):
    """importacoes.importados marca o que é com certeza um módulo (o `c` de `from a import c` pode ser um
    nome); o fecho, que a chave do cache e o navegador usam, segue os dois pela pasta."""
    codigo = "from . import a\nfrom .b import c\nfrom .f import *\nimport d.e\nfrom ... import longe\n"
    assert set(importacoes.importados(codigo, "p.q")) == {
        ("p.q", True), ("p.q.a", False), ("p.q.b", True), ("p.q.b.c", False), ("p.q.f", True), ("d.e", True)}
    assert importacoes.importados(codigo) == (("d.e", True),)      # relativos sem pacote: nada
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "__init__.py").write_text("from . import um_nome, m\nimport externo.x\n")
    (tmp_path / "p" / "m.py").write_text("from p.falta import y\n")
    modulos, fora = importacoes.fecho(["import p"], tmp_path)
    assert modulos == {"p": tmp_path / "p" / "__init__.py", "p.m": tmp_path / "p" / "m.py"}
    assert fora == {"externo": {"p"}, "p.falta": {"p.m"}}
    assert chave_cache.modulos_do_lab(["from p import m"], tmp_path) == [tmp_path / "p" / "__init__.py",
                                                                        tmp_path / "p" / "m.py"]
