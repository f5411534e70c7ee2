"""A chave do cache de execução (livro_ext/execucao/chave_cache.py): o hash dos módulos de lab/ que a
página importa. Mudar lab/formato.py muda a chave das páginas que o usam (e só delas); no
teste lento, um livro mínimo construído com `cache` mostra o número novo depois da mudança."""
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from livro_ext.execucao import chave_cache as cc

RAIZ = Path(__file__).resolve().parents[1]

MODELO = textwrap.dedent('''\
    ---
    jupytext:
      text_representation: {extension: .md, format_name: myst}
    kernelspec: {display_name: Python 3, language: python, name: python3}
    ---
    # Página

    ```{code-cell} python
    :tags: [remove-cell]
    from PACOTE.paginas import cola
    ```

    ```{code-cell} python
    from PACOTE.formato import num
    print(num(0.5))
    ```
    ''')


def _paginas(pacote):
    formato = MODELO.replace("PACOTE", pacote)
    mini = formato.replace(f"from {pacote}.paginas import cola\n", "").replace(
        f"from {pacote}.formato import num\nprint(num(0.5))", f"from {pacote} import mini\nprint(mini.X)")
    return formato, mini


PAGINA_FORMATO, PAGINA_SO_BRINQUEDO_MINI = _paginas("livro")


@pytest.fixture
def lab(tmp_path):
    """Uma cópia de lab/ (os .py de cima e os pacotes), para mudar sem tocar no repositório."""
    destino = tmp_path / "lab"
    shutil.copytree(RAIZ / "lab", destino, ignore=shutil.ignore_patterns("*.ipynb", "__pycache__"))
    (destino / "livro" / "mini.py").write_text("X = 1\n", encoding="utf-8")
    return destino


def _nomes(arquivos, lab):
    return {a.relative_to(lab).as_posix() for a in arquivos}


def test_acha_os_modulos_importados_direta_e_indiretamente(lab):
    nomes = _nomes(cc.modulos_do_lab(cc.codigos_da_pagina(PAGINA_FORMATO), lab), lab)
    assert any(n.endswith("formato.py") for n in nomes)
    assert any(n.endswith("paginas.py") for n in nomes)  # importado pela página
    assert not any(n.endswith("brinquedo.py") for n in nomes)  # ninguém importa
    nomes_mini = _nomes(cc.modulos_do_lab(cc.codigos_da_pagina(PAGINA_SO_BRINQUEDO_MINI), lab), lab)
    assert "livro/mini.py" in nomes_mini and not any(n.endswith("formato.py") for n in nomes_mini)


def test_pagina_de_verdade_inclui_o_brinquedo_e_o_formatador(lab):
    texto = (RAIZ / "book" / "saida.md").read_text(encoding="utf-8")
    nomes = _nomes(cc.modulos_do_lab(cc.codigos_da_pagina(texto), lab), lab)
    assert any(n.endswith("brinquedo.py") for n in nomes)
    assert any(n.endswith("formato.py") for n in nomes)
    assert not any("brinquedo_hf" in n or "widgets" in n for n in nomes)  # nem torch nem widgets


def test_mudar_formato_muda_a_chave_so_de_quem_usa(lab):
    antes = cc.celula(PAGINA_FORMATO, lab), cc.celula(PAGINA_SO_BRINQUEDO_MINI, lab)
    assert antes[0].count("sha256") == 1 and ":tags: [remove-cell, chave-do-cache]" in antes[0]
    formato = next(lab.rglob("formato.py"))
    formato.write_text(formato.read_text(encoding="utf-8") + "\n# uma mudança\n", encoding="utf-8")
    depois = cc.celula(PAGINA_FORMATO, lab), cc.celula(PAGINA_SO_BRINQUEDO_MINI, lab)
    assert depois[0] != antes[0]
    assert depois[1] == antes[1]


def test_relativos_dentro_de_pacote(tmp_path):
    lab = tmp_path / "lab"
    (lab / "pac" / "sub").mkdir(parents=True)
    (lab / "pac" / "__init__.py").write_text("", encoding="utf-8")
    (lab / "pac" / "base.py").write_text("Y = 2\n", encoding="utf-8")
    (lab / "pac" / "sub" / "__init__.py").write_text("", encoding="utf-8")
    (lab / "pac" / "sub" / "a.py").write_text("from .. import base\nfrom . import b\n", encoding="utf-8")
    (lab / "pac" / "sub" / "b.py").write_text("", encoding="utf-8")
    (lab / "solto.py").write_text("", encoding="utf-8")
    nomes = _nomes(cc.modulos_do_lab(["from pac.sub import a"], lab), lab)
    assert nomes == {"pac/__init__.py", "pac/base.py", "pac/sub/__init__.py", "pac/sub/a.py", "pac/sub/b.py"}


def test_modo_de_execucao():
    assert cc.modo({}, "cache") == "cache"
    assert cc.modo({"CI": "true"}, "cache") == "force"
    assert cc.modo({"CI": "true", "LIVRO_EXECUCAO": "cache"}, "force") == "cache"
    assert cc.modo({"LIVRO_EXECUCAO": "nada"}, "cache") == "cache"


@pytest.mark.lento
def test_livro_minimo_com_cache_roda_de_novo_depois_de_mudar_o_lab(tmp_path):
    """Um livro de duas páginas, construído com `cache`: mudar lab/formato.py roda de novo a
    página que o usa (o número novo aparece) e deixa a outra no cache."""
    raiz = tmp_path / "mini"
    (raiz / "book").mkdir(parents=True)
    pac = raiz / "lab" / "mini_livro"     # um pacote do livro mínimo, importado pelo nome
    pac.mkdir(parents=True)
    (pac / "__init__.py").write_text("", encoding="utf-8")
    (pac / "formato.py").write_text("def num(x):\n    return str(x).replace('.', ',')\n", encoding="utf-8")
    (pac / "paginas.py").write_text("def cola(*a):\n    pass\n", encoding="utf-8")
    (pac / "mini.py").write_text("X = 1\n", encoding="utf-8")
    pagina_a, pagina_b = _paginas("mini_livro")
    (raiz / "book" / "a.md").write_text(pagina_a, encoding="utf-8")
    (raiz / "book" / "b.md").write_text(pagina_b, encoding="utf-8")
    (raiz / "index.md").write_text("# Mini\n", encoding="utf-8")
    (raiz / "_toc.yml").write_text("format: jb-book\nroot: index\nchapters:\n- file: book/a\n- file: book/b\n",
                                   encoding="utf-8")
    (raiz / "_config.yml").write_text(textwrap.dedent("""\
        title: mini
        only_build_toc_files: true
        exclude_patterns: [_build, lab]
        execute:
          execute_notebooks: cache
        sphinx:
          extra_extensions: [livro_ext.execucao.chave_cache]
        """), encoding="utf-8")
    jb = Path(sys.executable).parent / "jupyter-book"
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("CI", "LIVRO_EXECUCAO")}
    env["PYTHONPATH"] = str(raiz / "lab")    # o kernel importa o mini_livro desta pasta

    def constroi():
        p = subprocess.run([str(jb), "build", ".", "--all"], cwd=raiz, capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
        log = p.stdout + p.stderr
        html = (raiz / "_build" / "html" / "book" / "a.html").read_text(encoding="utf-8")
        return log, html

    log, html = constroi()
    assert "0,5" in html
    assert log.count("Executed notebook") == 2, log[-2000:]
    log, html = constroi()  # nada mudou: as duas saem do cache
    assert log.count("Executed notebook") == 0, log[-2000:]
    assert "0,5" in html
    # o notebook executado (que a trava de números lê) tem as saídas, mesmo vindo do cache
    assert "0,5" in (raiz / "_build" / "jupyter_execute" / "book" / "a.ipynb").read_text(encoding="utf-8")
    (pac / "formato.py").write_text("def num(x):\n    return 'meio' if x == 0.5 else str(x)\n",
                                    encoding="utf-8")
    log, html = constroi()
    assert "meio" in html  # o número novo, não o velho do cache
    assert log.count("Executed notebook") == 1, log[-2000:]  # só a página que usa formato.py


def test_build_tem_a_chave_e_o_notebook_baixado_nao(build):
    """O notebook executado guarda a célula da chave; o notebook que o leitor baixa, não."""
    executado = (build / "jupyter_execute" / "book" / "saida.ipynb").read_text(encoding="utf-8")
    assert cc.TAG in executado and "sha256" in executado
    assert "soma de cada linha de p" in executado  # as saídas estão lá (também vindas do cache)
    for nb in (build / "html" / "_notebooks" / "book").glob("*.ipynb"):
        assert cc.TAG not in nb.read_text(encoding="utf-8"), nb.name
