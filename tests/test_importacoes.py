"""O leitor de imports do build (book/_ext/importacoes.py).

Três peças perguntam o que um código importa (a chave do cache de execução, o que vai para
o navegador e para os notebooks, o que o Colab instala): todas leem do mesmo leitor, e cada
uma vê o seu recorte.
"""
import doctest
from pathlib import Path

from livro_ext import chave_cache, importacoes, navegador, notebooks
from livro_ext.importacoes import Importacao

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


def test_doctests_do_leitor():
    r = doctest.testmod(importacoes)
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
    # o navegador quer o nome inteiro, e o submódulo de `from livro import x` quando existe
    nomes = navegador.imports(CODIGO, "livro.paginas")
    assert {"livro", "livro.brinquedo", "livro.formato", "livro.vizinho", "os.path", "opcional_a"} <= nomes
    assert "livro.formato.num" not in navegador.imports("from livro.formato import num")
    assert "pedido.pelo_nome" not in nomes     # find_spec não é um import do código
    # a chave do cache de execução: os módulos de lab/ importados, direta ou indiretamente
    arquivos = chave_cache.modulos_do_lab(["from livro import paginas"])
    assert RAIZ / "lab" / "livro" / "formato.py" in arquivos   # paginas.py importa o formatador
