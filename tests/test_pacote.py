"""O Python do livro é um pacote só (`livro`, e as extensões em `livro_ext`), importado pelo nome.

Nenhum arquivo do repositório mexe no caminho de busca do Python: páginas, extensões, testes,
scripts, o worker e os notebooks gerados importam `livro` porque ele está instalado
(`pip install -e .`, no `make`) ou porque a pasta `livro/` está ao lado (notebook baixado).
"""
import ast
import json
import re
import subprocess
import sys

import pytest
from conftest import EDITA_CAMINHO, RAIZ

import livro
import livro_ext
from livro_ext.widgets import navegador



def _arquivos():
    nomes = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=RAIZ,
                           check=True, capture_output=True).stdout.decode().split("\0")
    return [n for n in nomes if n and (RAIZ / n).is_file()]


S = "sys" + ".path"  # montado, para que este arquivo não acuse a si mesmo


@pytest.mark.parametrize("linha, edita", [
    (S + '.insert(0, os.path.abspath("../lab"))', True),
    ("import sys; " + S + "[:0] = ['/lab']", True),
    (S + ".append(pasta)", True),
    (S + ".extend([a, b])", True),
    (S + " = [x] + " + S, True),
    (S + " += ['x']", True),
    ("if pasta not in " + S + ":", False),
    ("assert " + S + "[0] == ''", False),
    ("print(" + S + ")", False),
])
def test_o_detector_acha_cada_forma(linha, edita):
    assert bool(EDITA_CAMINHO.search(linha)) is edita


def test_nenhum_arquivo_mexe_no_sys_path():
    achados = []
    for nome in _arquivos():
        try:
            texto = (RAIZ / nome).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binário
        for n, linha in enumerate(texto.splitlines(), 1):
            if EDITA_CAMINHO.search(linha):
                achados.append(f"{nome}:{n}: {linha.strip()[:100]}")
    assert not achados, ("importe o pacote pelo nome (from livro import ...), sem mexer no sys.path:\n"
                         + "\n".join(achados))


def test_o_pacote_vem_do_repositorio():
    """O `livro` e o `livro_ext` importados são os deste repositório (instalados em modo de
    desenvolvimento), não uma cópia velha."""
    assert livro.__file__ == str(RAIZ / "lab" / "livro" / "__init__.py")
    assert livro_ext.__file__ == str(RAIZ / "livro_ext" / "__init__.py")


def test_nenhum_arquivo_passa_de_600_linhas():
    """Nenhum arquivo de código do repositório (.py, .js, .mjs, .css; testes e dev/ também) passa
    de 600 linhas."""
    grandes = [f"{n}: {len((RAIZ / n).read_text(encoding='utf-8').splitlines())}" for n in _arquivos()
               if n.endswith((".py", ".js", ".mjs", ".css")) and not n.startswith("node_modules/")
               and len((RAIZ / n).read_text(encoding="utf-8").splitlines()) > 600]
    assert not grandes, grandes


def _codigos(nome):
    """Os códigos Python de um arquivo: o próprio .py, ou as células {code-cell} de uma página."""
    texto = (RAIZ / nome).read_text(encoding="utf-8")
    if nome.endswith(".py"):
        return [texto]
    return re.findall(r"^```\{code-cell\}[^\n]*\n(.*?)^```", texto, re.M | re.S)


def test_nenhum_auxiliar_com_sublinhado_importado_de_fora():
    """`from livro.x import _y` não: o que outro módulo usa é público."""
    ruins = []
    for nome in _arquivos():
        if not nome.endswith(".py") and not (nome.startswith("book/") and nome.endswith(".md")):
            continue
        for codigo in _codigos(nome):
            codigo = "\n".join(ln for ln in codigo.splitlines() if not ln.startswith((":", "%", "!")))
            try:
                arvore = ast.parse(codigo)
            except SyntaxError:
                continue
            for no in ast.walk(arvore):
                if isinstance(no, ast.ImportFrom) and (no.module or "").startswith("livro"):
                    ruins += [f"{nome}:{no.lineno}: from {no.module} import {a.name}" for a in no.names
                              if a.name.startswith("_")]
    assert not ruins, ruins


# ---------------------------------------------------------------------------
# O que sai do build: derivado dos imports
# ---------------------------------------------------------------------------
def test_navegador_recebe_o_fecho_de_livro_widgets():
    arquivos = navegador.modulos_navegador()
    widgets = sorted(p.relative_to(RAIZ / "lab").as_posix() for p in (RAIZ / "lab/livro/widgets").glob("*.py"))
    assert set(widgets) <= set(arquivos)
    # o que os widgets importam, e nada do laboratório do GPT-2 nem das páginas
    assert {"livro/__init__.py", "livro/brinquedo.py", "livro/formato.py", "livro/arquitetura.py"} <= set(arquivos)
    assert not [a for a in arquivos if a.startswith("livro/gpt2/") or a == "livro/paginas.py"]
    for a in arquivos:
        assert (RAIZ / "lab" / a).is_file(), a


def test_navegador_recusa_um_widget_que_importa_numpy(monkeypatch, tmp_path):
    pacote = tmp_path / "livro"
    (pacote / "widgets").mkdir(parents=True)
    (pacote / "__init__.py").write_text("")
    (pacote / "widgets" / "__init__.py").write_text("")
    (pacote / "conta.py").write_text("import numpy as np\n")
    (pacote / "widgets" / "api.py").write_text("import json\nfrom livro import conta\n")
    monkeypatch.setattr(navegador, "BASE", tmp_path)
    monkeypatch.setattr(navegador, "PACOTE", pacote)
    with pytest.raises(navegador.ErroNavegador, match=r"numpy \(importado por livro\.conta\)"):
        navegador.modulos_navegador()


def test_navegador_recusa_um_modulo_de_livro_que_nao_existe():
    with pytest.raises(navegador.ErroNavegador, match=r"a página importa livro\.nao_existe, que não existe"):
        navegador.arquivos_do_pacote(["import livro.nao_existe"])


def test_fecho_com_imports_relativos_e_dados(monkeypatch, tmp_path):
    pacote = tmp_path / "livro"
    (pacote / "sub").mkdir(parents=True)
    (pacote / "__init__.py").write_text("")
    (pacote / "sub" / "__init__.py").write_text("")
    (pacote / "sub" / "a.py").write_text("from . import b\nfrom ..c import f\n")
    (pacote / "sub" / "b.py").write_text("")
    (pacote / "c.py").write_text('ARQ = "d.json"\n')
    (pacote / "d.json").write_text("{}")
    (pacote / "e.py").write_text("")
    monkeypatch.setattr(navegador, "BASE", tmp_path)
    monkeypatch.setattr(navegador, "PACOTE", pacote)
    arquivos, _ = navegador.arquivos_do_pacote(["from livro.sub import a"])
    assert arquivos == ["livro/__init__.py", "livro/c.py", "livro/d.json", "livro/sub/__init__.py",
                        "livro/sub/a.py", "livro/sub/b.py"]


@pytest.mark.pesado  # livro.gpt2.lab importa o torch: uns 1,3 s
def test_o_colab_do_laboratorio_baixa_o_fecho_de_livro_gpt2_lab():
    from livro.gpt2 import lab as gl

    arquivos, externos = navegador.arquivos_do_pacote(["from livro.gpt2 import lab"])
    assert sorted(gl.ARQUIVOS) == arquivos
    assert {"torch", "transformers"} <= set(externos)


def test_importar_todos_traz_o_modulo_de_cada_widget():
    """O worker chama `importar_todos` antes de guardar a memória do Python: depois dela, cada
    widget acha o seu módulo já importado (num Python novo, nenhum estava antes)."""
    codigo = (
        "import sys, json\n"
        "import livro.widgets.api as api\n"
        "mods = sorted({'livro.widgets.' + m for _, m in api.WIDGETS.values()})\n"
        "antes = [m for m in mods if m in sys.modules]\n"
        "api.importar_todos()\n"
        "depois = [m for m in mods if m in sys.modules]\n"
        "ok = all(nome in sys.modules['livro.widgets.' + m].REGISTRO for nome, (_, m) in api.WIDGETS.items())\n"
        "print(json.dumps([mods, antes, depois, ok]))\n")
    r = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, check=True)
    mods, antes, depois, ok = json.loads(r.stdout)
    assert len(mods) >= 3 and antes == [] and depois == mods and ok


def test_importar_todos_importa_todo_o_fecho_do_navegador():
    """Com a memória restaurada, o worker responde aos widgets antes de instalar a roda (os
    arquivos dela chegam depois do "pronto"): todo módulo de `livro` que vai para o navegador
    tem de estar importado depois de `importar_todos`. Um import de `livro` dentro de uma
    função, de um módulo que nada mais importa, quebraria isso."""
    nomes = sorted(a[:-3].replace("/", ".").removesuffix(".__init__")
                   for a in navegador.modulos_navegador() if a.endswith(".py"))
    codigo = (
        "import sys, json\n"
        "import livro.widgets.api as api\n"
        "api.importar_todos()\n"
        f"print(json.dumps([m for m in {nomes!r} if m not in sys.modules]))\n")
    r = subprocess.run([sys.executable, "-c", codigo], capture_output=True, text=True, check=True)
    assert len(nomes) >= 8 and "livro.brinquedo" in nomes
    assert json.loads(r.stdout) == []
