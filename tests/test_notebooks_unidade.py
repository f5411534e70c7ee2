"""O exportador de notebooks (`livro_ext.notebooks.notebooks`, `notebooks_md`) em unidade, sem build.

Um notebook "executado" de mentira (células, tags e o glue.json que o myst-nb grava) passa por
`montar`: o notebook sai válido, sem sintaxe do livro, e o pacote que a célula de preparo
grava faz parse, é igual byte a byte ao do repositório (escapes incluídos) e importa.
"""
import ast
import json
import subprocess
import sys

import nbformat
import pytest

from livro_ext.widgets import navegador
from livro_ext.notebooks import notebooks as nbs
from livro_ext.notebooks.notebooks_md import Conversor

CODIGO = "from livro import brinquedo as b\nfrom livro.paginas import cola\ncola('V', str(b.V))\n"


def _arquivos(celula):
    no = next(n for n in ast.walk(ast.parse(celula)) if isinstance(n, ast.Assign)
              and getattr(n.targets[0], "id", "") == "_ARQUIVOS")
    return ast.literal_eval(no.value)


def test_celula_de_preparo_faz_parse_e_guarda_cada_arquivo_exato():
    precisa, _ = navegador.arquivos_do_pacote([CODIGO])
    assert "livro/brinquedo.py" in precisa and "livro/paginas.py" in precisa
    celula = nbs.celula_preparo(precisa)
    arquivos = _arquivos(celula)
    assert sorted(arquivos) == sorted(precisa)
    for nome, texto in arquivos.items():
        assert texto == (navegador.BASE / nome).read_text(encoding="utf-8"), nome


@pytest.mark.parametrize("texto", ["a = '''três aspas'''\n", 'b = r"\\times \\n \\\\"\n', "c = '\\\\'\n",
                                   's = """x"""\nt = "\'\'\'"\n', "fim com barra \\\\", "ção · ␣ 猫 \t tab\n"])
def test_escapes_sobrevivem(texto, tmp_path, monkeypatch):
    (tmp_path / "livro").mkdir()
    (tmp_path / "livro" / "x.py").write_text(texto, encoding="utf-8")
    monkeypatch.setattr(navegador, "BASE", tmp_path)
    assert _arquivos(nbs.celula_preparo(["livro/x.py"])) == {"livro/x.py": texto}
    assert ast.literal_eval(nbs._literal(texto)) == texto


def _executado(tmp_path):
    """Um notebook como o myst-nb o deixa em jupyter_execute/, com o glue.json ao lado."""
    pasta = tmp_path / "jupyter_execute"
    (pasta / "book").mkdir(parents=True)
    glue = {"V": {"data": {"text/plain": "'12'"}},
            "eq": {"data": {"text/plain": "<Math>", "text/latex": r"$\displaystyle x = 0{,}866$"}},
            "tab": {"data": {"text/plain": "<Markdown>", "text/markdown": "| a | b |\n| --- | --- |\n| 1 | 2 |"}}}
    (pasta / "book" / "p.glue.json").write_text(json.dumps(glue), encoding="utf-8")
    celulas = [
        nbformat.v4.new_markdown_cell("# Página\n\nO vocabulário tem {glue}`V` tokens.\n\n"
                                      "```{glue:math} eq\n```\n\n```{glue:md} tab\n```\n\n"
                                      ":::{note}\nUma nota com {glue:text}`V`.\n:::\n"),
        nbformat.v4.new_code_cell(CODIGO, metadata={"tags": ["remove-cell"]}),
        nbformat.v4.new_code_cell("print(b.VOCAB[0])"),
        nbformat.v4.new_code_cell("chave = 1", metadata={"tags": ["chave-do-cache"]}),
    ]
    nb = nbformat.v4.new_notebook(cells=celulas)
    (pasta / "book" / "p.ipynb").write_text(nbformat.writes(nb), encoding="utf-8")
    return pasta / "book" / "p.ipynb", pasta


def test_montar_da_um_notebook_que_roda_sozinho(tmp_path):
    executado, pasta = _executado(tmp_path)
    nb, avisos = nbs.montar(executado, pasta, "book/p", lambda d: f"https://x.io/{d}.html",
                            "https://x.io/", "Livro", "Página")
    assert avisos == []
    nbformat.validate(nbformat.reads(json.dumps(nb), as_version=4))
    fontes = ["".join(c["source"]) for c in nb["cells"]]
    md = "\n".join(f for c, f in zip(nb["cells"], fontes) if c["cell_type"] == "markdown")
    assert "{glue" not in md and "```{" not in md and ":::" not in md
    assert "tem 12 tokens" in md and "$$\nx = 0{,}866\n$$" in md and "| 1 | 2 |" in md
    assert "> **Nota**" in md and "Uma nota com 12." in md
    assert fontes[0].startswith("# Página")                # o título fica no topo
    assert not any("chave = 1" in f for f in fontes)      # a célula da chave do cache some
    codigo = [f for c, f in zip(nb["cells"], fontes) if c["cell_type"] == "code"]
    assert codigo[0].startswith("#@title Preparação")
    assert codigo[1].startswith("#@title ") and CODIGO in codigo[1]   # a remove-cell, recolhida
    # o notebook, rodado como um script numa pasta vazia: grava livro/ e importa de lá
    trabalho = tmp_path / "trabalho"
    trabalho.mkdir()
    script = "\n".join(f for f in codigo if "%pip" not in f) + "\nimport livro\nprint(livro.__file__)\n"
    compile(script, "notebook", "exec")
    r = subprocess.run([sys.executable, "-c", script], cwd=trabalho, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == ["o", str(trabalho / "livro" / "__init__.py")]
    for nome in _arquivos(codigo[0]):
        assert (trabalho / nome).read_bytes() == (navegador.BASE / nome).read_bytes(), nome


def test_montar_recusa_o_glue_do_myst_nb(tmp_path):
    executado, pasta = _executado(tmp_path)
    nb = json.loads(executado.read_text(encoding="utf-8"))
    nb["cells"][2]["source"] = "from myst_nb import glue\nglue('x', 1)"
    executado.write_text(json.dumps(nb), encoding="utf-8")
    with pytest.raises(nbs.ErroNotebook):
        nbs.montar(executado, pasta, "book/p", lambda d: d)


def test_glue_que_falta_vira_aviso_e_marca(tmp_path):
    _, pasta = _executado(tmp_path)
    conv = Conversor(pasta, "book/p", lambda d: f"https://x.io/{d}.html", "https://x.io/")
    assert conv.markdown("Temos {glue}`nao_existe`.") == "Temos **[nao_existe?]**."
    assert conv.avisos and "nao_existe" in conv.avisos[0]
    assert conv.markdown("[o bloco](bloco.md#a-soma)") == "[o bloco](https://x.io/book/bloco.html#a-soma)"
    assert conv.markdown("{glue:text}`V:>4`") == "  12"
    # o glue de outra página; o código inline fica como está; com duas crases, sem os espaços de dentro
    (pasta / "book" / "q.glue.json").write_text(json.dumps({"W": {"data": {"text/plain": "'7'"}}}), encoding="utf-8")
    assert conv.markdown("{glue:text}`q.md::W:s`, ``{glue}`V` `` e {glue}`` V ``") == "7, ``{glue}`V` `` e 12"
    # o texto alternativo de uma imagem não fecha o link com ] nem escapa com \
    from livro_ext.notebooks.notebooks_md import texto_alternativo
    assert texto_alternativo("a matriz [5 × 4] \\ X") == "a matriz 5 × 4  X"


def test_pacotes_que_o_colab_nao_tem():
    assert nbs.modulos_externos(["import numpy\nimport os\nfrom livro import b\nimport nbformat.v4",
                                 "try:\n    import myst_nb\n    import matplotlib_inline\nexcept ImportError:\n    pass",
                                 "import myst_nb"]) == {"numpy", "nbformat"}
    pip = nbs.a_instalar({"numpy", "nbformat"})
    assert [p.split("==")[0] for p in pip] == ["nbformat"]     # o numpy o Colab já tem
    assert pip[0] in nbs.fixados().values()
    with pytest.raises(nbs.ErroNotebook):
        nbs.a_instalar({"um_modulo_que_nao_existe"})
