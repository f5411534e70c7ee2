"""Os notebooks que o site oferece (_build/html/_notebooks) rodam sozinhos.

Cada um roda numa pasta vazia, sem o repositório, sem o myst-nb (um `myst_nb.py` falso na
frente do PYTHONPATH levanta ImportError) e sem rede (um sitecustomize recusa conexões que
não sejam locais), com o kernel python3 do .venv.
"""
import os
import re
import shutil
import tempfile
import textwrap
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

from conftest import BUILD

PASTA = BUILD / "html" / "_notebooks"
EXECUTADAS = BUILD / "jupyter_execute"
NOTEBOOKS = sorted(PASTA.rglob("*.ipynb")) if PASTA.is_dir() else []

BLOQUEIO_MYST = 'raise ImportError("myst_nb bloqueado: o notebook precisa rodar sem ele")\n'
SEM_REDE = textwrap.dedent('''
    import socket
    _conecta = socket.socket.connect
    def _so_local(self, endereco, *a, **k):
        host = endereco[0] if isinstance(endereco, tuple) else endereco
        if isinstance(host, str) and host not in ("127.0.0.1", "::1", "localhost") and not host.startswith("/"):
            raise OSError("rede bloqueada no teste: o notebook precisa rodar offline")
        return _conecta(self, endereco, *a, **k)
    socket.socket.connect = _so_local
''')


def _paginas_executadas():
    return sorted(p.relative_to(EXECUTADAS).with_suffix("").as_posix()
                  for p in EXECUTADAS.rglob("*.ipynb"))


def test_toda_pagina_executavel_tem_notebook(build):
    faltam = [p for p in _paginas_executadas()
              if not (PASTA / (p + ".ipynb")).exists()]
    assert not faltam, f"páginas sem notebook em _build/html/_notebooks: {faltam}"


def test_ha_notebooks(build):
    assert NOTEBOOKS, "nenhum notebook em _build/html/_notebooks (rode `make book`)"


def _executa(caminho, pasta, ipc):
    """Roda um notebook numa pasta vazia, sem myst-nb e sem rede -> (notebook, erro ou None)."""
    nb = nbformat.read(caminho, as_version=4)
    bloqueios = pasta / "bloqueios"
    bloqueios.mkdir(parents=True)
    (bloqueios / "myst_nb.py").write_text(BLOQUEIO_MYST)
    (bloqueios / "sitecustomize.py").write_text(SEM_REDE)
    trabalho = pasta / "trabalho"
    trabalho.mkdir()
    env = dict(os.environ, PYTHONPATH=str(bloqueios), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", PYDEVD_DISABLE_FILE_VALIDATION="1")
    # uma célula final confere que o myst-nb e a rede estavam mesmo fora do alcance
    nb.cells.append(nbformat.v4.new_code_cell(textwrap.dedent("""
        import socket
        try:
            import myst_nb
        except ImportError:
            print("sem myst_nb")
        try:
            socket.create_connection(("192.0.2.1", 80), timeout=1)
        except OSError as e:
            print("sem rede" if "bloqueada" in str(e) else e)
    """)))
    # o kernel fala por sockets Unix (ipc), não por portas TCP: sem corrida por porta livre
    # (caminho curto: um socket Unix não passa de ~100 caracteres)
    km = AsyncKernelManager(kernel_name="python3", transport="ipc",
                            ip=os.path.join(ipc, caminho.stem))
    cliente = NotebookClient(nb, km=km, timeout=180,
                             resources={"metadata": {"path": str(trabalho)}})
    try:
        cliente.execute(env=env)
    except Exception as e:  # o teste mostra o erro da célula
        return nb, trabalho, e
    return nb, trabalho, None


@pytest.fixture(scope="module")
def execucoes(tmp_path_factory):
    """Todos os notebooks, dois de cada vez (cada um no seu kernel)."""
    ipc = tempfile.mkdtemp(prefix="nb")
    try:
        with ThreadPoolExecutor(max_workers=2) as ex:
            futuros = {c: ex.submit(_executa, c, tmp_path_factory.mktemp("nb"), ipc) for c in NOTEBOOKS}
            return {c: f.result() for c, f in futuros.items()}
    finally:
        shutil.rmtree(ipc, ignore_errors=True)


@pytest.mark.parametrize("caminho", NOTEBOOKS, ids=lambda p: p.relative_to(PASTA).as_posix())
def test_notebook_sem_sintaxe_do_livro(caminho):
    nb = nbformat.read(caminho, as_version=4)
    for k, c in enumerate(nb.cells):
        if c.cell_type == "markdown":
            assert "{glue" not in c.source, f"célula {k} ainda tem um papel glue: {c.source[:200]}"
            assert not re.search(r"^\s*(```|:::)\{", c.source, re.M), f"célula {k} ainda tem uma diretiva MyST"


@pytest.mark.parametrize("caminho", NOTEBOOKS, ids=lambda p: p.relative_to(PASTA).as_posix())
def test_notebook_roda_sozinho(caminho, execucoes):
    nb, trabalho, erro = execucoes[caminho]
    assert erro is None, f"{caminho.name} falhou fora do livro:\n{erro}"
    assert (trabalho / "brinquedo.py").exists() and (trabalho / "formato.py").exists()
    assert nb.cells[-1].outputs[0]["text"].split() == ["sem", "myst_nb", "sem", "rede"]
