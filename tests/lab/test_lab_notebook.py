"""O notebook do laboratório: gerado da fonte, com nove seções e checkpoints, e rodando inteiro."""
import os
import re
import shutil
import tempfile

import nbformat
import pytest

from .conftest import LAB, RAIZ

NOTEBOOK = os.path.join(LAB, "laboratorio_gpt2.ipynb")


def _gerador():
    from livro.gpt2 import notebook as laboratorio_notebook

    return laboratorio_notebook


def executa(env, pasta=LAB, timeout=600):
    """Roda o notebook inteiro num kernel python3 (sockets Unix) e devolve o notebook executado."""
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    ipc = tempfile.mkdtemp(prefix="lab")
    try:
        km = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(ipc, "k"))
        NotebookClient(nb, km=km, timeout=timeout,
                       resources={"metadata": {"path": pasta}}).execute(env=env)
    finally:
        shutil.rmtree(ipc, ignore_errors=True)
    return nb


def saida_texto(nb):
    partes = []
    for c in nb.cells:
        if c.cell_type == "code":
            for o in c.get("outputs", []):
                partes.append(o.get("text", ""))
    return "".join(partes)


def test_ipynb_em_dia_com_a_fonte():
    assert _gerador().main(["--confere"]) == 0, "rode: python -m livro.gpt2.notebook"


def test_ipynb_sem_saidas_e_valido():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert nb.metadata.kernelspec.name == "python3"


def test_preparo_para_o_colab():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    primeira = next(c.source for c in nb.cells if c.cell_type == "code")
    assert 'find_spec("transformers") is None' in primeira and "pip" in primeira
    url = _gerador().url_lab(os.path.join(RAIZ, "_config.yml"))
    assert re.fullmatch(r"https://raw\.githubusercontent\.com/[\w.-]+/[\w.-]+/[\w.-]+/lab/", url)
    assert f'URL_LAB = "{url}"' in primeira
    arquivos = [a.strip() for a in re.search(r"ARQUIVOS = \(([^)]*)\)", primeira).group(1)
                .replace('"', "").replace("\n", " ").split(",") if a.strip()]
    from livro.gpt2 import lab as gpt2_lab

    assert tuple(arquivos) == gpt2_lab.ARQUIVOS          # o Colab baixa tudo que o lab importa
    for arquivo in arquivos:
        assert os.path.exists(os.path.join(LAB, arquivo)), arquivo


def test_celula_de_preparo_recolhida_no_colab():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    primeira = next(c for c in nb.cells if c.cell_type == "code")
    assert primeira.source.startswith("#@title ")
    assert primeira.metadata["cellView"] == "form"
    assert primeira.metadata["jupyter"]["source_hidden"]


def test_url_do_lab_segue_o_repositorio():
    g = _gerador()
    url = g.url_lab(os.path.join(RAIZ, "_config.yml"), repo_url="https://github.com/fulana/livro-fork")
    assert url == "https://raw.githubusercontent.com/fulana/livro-fork/main/lab/"
    nb = nbformat.reads(g.gera(url), as_version=4)
    assert any(f'URL_LAB = "{url}"' in c.source for c in nb.cells)


def test_nove_secoes_cada_uma_com_checkpoint():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    titulos = [c.source.splitlines()[0] for c in nb.cells
               if c.cell_type == "markdown" and re.match(r"## [1-9]\. ", c.source)]
    assert [t[3] for t in titulos] == [str(k) for k in range(1, 10)]
    checkpoints = [c.source for c in nb.cells if c.cell_type == "code"
                   and c.source.startswith("# checkpoint")]
    assert [s.splitlines()[0] for s in checkpoints] == [f"# checkpoint {k}" for k in range(1, 10)]
    for s in checkpoints:
        assert "assert " in s
    # as seções 1 a 8 comparam com o curso
    assert sum("curso.confere_tudo" in s for s in checkpoints) == 8


def test_celulas_curtas():
    """As contas moram em livro/gpt2/lab.py; o notebook só chama e mostra."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for c in nb.cells:
        if c.cell_type == "code":
            assert len(c.source.splitlines()) <= 25, c.source[:200]


@pytest.fixture(scope="module")
def executado(cache_minusculo):
    return executa(cache_minusculo["env"])


def test_notebook_roda_inteiro_no_gpt2_minusculo(executado):
    texto = saida_texto(executado)
    for k in range(1, 10):
        assert f"checkpoint {k} ok" in texto
    erros = [o for c in executado.cells if c.cell_type == "code"
             for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not erros
    assert "comparar com o curso: não" in texto


def test_notebook_mostra_o_que_mediu(executado):
    texto = saida_texto(executado)
    assert "['Data', ' visualization', ' em', 'powers', ' users', ' to']" in texto
    assert "GPT-2 small pela fórmula: bloco 7.087.872, total 124.439.808" in texto
    assert "com cache = sem cache: True" in texto
    m = re.search(r"valores do curso conferidos: (\d+); pulados: (\d+)", texto)
    assert m and int(m.group(1)) >= 14 and int(m.group(2)) > 0
