"""A trava dos números: o build de agora mostra os mesmos números que book/numeros.lock.json.

A regra do que entra na razão está no docstring de book/_ext/razao.py.
"""
import json
import re
import shutil
import subprocess
import time

import pytest

import razao

from conftest import RAIZ

PY = RAIZ / ".venv" / "bin" / "python"
JB = RAIZ / ".venv" / "bin" / "jupyter-book"


def test_razao_confere_com_o_lock(build):
    linhas = razao.verificar(build, razao.LOCK)
    assert not linhas, ("números mudaram (se é de propósito: make lock):\n" + "\n".join(linhas))


def test_lock_existe_e_esta_em_forma_canonica():
    assert razao.LOCK.exists(), "falta book/numeros.lock.json: rode `make lock`"
    texto = razao.LOCK.read_text(encoding="utf-8")
    assert texto == razao.serializa(json.loads(texto)), "lock editado à mão? rode `make lock`"
    assert razao.PAGINA_RAZAO not in json.loads(texto)


def test_pagina_para_instrutores_mostra_todo_numero(build):
    html = build / "html" / (razao.PAGINA_RAZAO + ".html")
    if not html.exists():
        pytest.skip("book/numeros.md ainda não está no _toc.yml")
    texto = html.read_text(encoding="utf-8")
    total = sum(len(v) for v in razao.ler_lock().values())
    assert texto.count("<tr>") - 1 == total  # menos a linha do cabeçalho
    assert 'id="razao-filtro"' in texto


# ---------------------------------------------------------------------------
# A regra do que entra (um notebook de mentira, sem build)
# ---------------------------------------------------------------------------
def _celula(src, saidas=(), tags=()):
    return {"cell_type": "code", "source": src, "metadata": {"tags": list(tags)},
            "outputs": list(saidas), "execution_count": 1}


def _stdout(t):
    return {"output_type": "stream", "name": "stdout", "text": t}


def test_regra_do_que_entra(tmp_path):
    pasta = tmp_path / "_build" / "jupyter_execute" / "book"
    pasta.mkdir(parents=True)
    nb = {"cells": [
        {"cell_type": "markdown", "source": "# Página", "metadata": {}},
        _celula('glue("p", num(0.3951), display=False)\nprint("oculta")', [_stdout("oculta\n")],
                tags=["remove-cell"]),
        _celula("print(vetor(a))", [_stdout("[-0,739; 1,411]\n"),
                                    {"output_type": "execute_result", "metadata": {},
                                     "data": {"text/plain": "[-0.7392358889419289, 1.41]"}}]),
        _celula("import time\nfor i in range(2):\n    glue(f\"t_{i}\", time.time())\nprint(1)",
                [_stdout("1\n")], tags=["nao-travar"]),
        _celula("object()", [{"output_type": "execute_result", "metadata": {},
                              "data": {"text/plain": "<object object at 0x7f05f32c73d0>"}}]),
        _celula("aviso()", [{"output_type": "stream", "name": "stderr", "text": "cuidado\n"}]),
        _celula("fig", [{"output_type": "display_data", "metadata": {},
                         "data": {"image/png": "iVBOR", "text/plain": "<Figure>"}}]),
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (pasta / "pag.ipynb").write_text(json.dumps(nb))
    glue = {
        "p": {"data": {"text/plain": "'0,395'"}},
        "eq": {"data": {"text/latex": "$\\displaystyle h = 0{,}5$", "text/plain": "<Math>"}},
        "fig": {"data": {"image/png": "iVBOR", "text/plain": "<Figure>"}},
        "t_0": {"data": {"text/plain": "1700000000.1"}},
        "t_1": {"data": {"text/plain": "1700000000.2"}},
    }
    (pasta / "pag.glue.json").write_text(json.dumps(glue))
    # a própria página da razão nunca entra
    (pasta / "numeros.ipynb").write_text(json.dumps(nb))

    r = razao.coletar(tmp_path / "_build")
    assert r == {"book/pag": {
        "celula:02.1": "[-0,739; 1,411]",
        "celula:02.2": "[-0.739235888942, 1.41]",   # float cru: 12 dígitos significativos
        "eq": "h = 0{,}5",
        "fig": "(figura)",
        "p": "0,395",
    }}
    assert razao.serializa(r) == razao.serializa(razao.coletar(tmp_path / "_build"))


def test_uma_linha_por_numero_que_mudou():
    velha = {"book/a": {"x": "0,395", "y": "1", "z": "l1\nl2\nl3"}, "book/b": {"k": "2"}}
    nova = {"book/a": {"x": "0,402", "w": "3", "z": "l1\nL2\nl3"}, "book/c": {"k": "2"}}
    linhas = razao.diferencas(velha, nova)
    assert linhas == [
        "+ book/a · w: 3 (novo)",
        "~ book/a · x: 0,395 → 0,402",
        "- book/a · y: 1 (sumiu)",
        "~ book/a · z linha 2: l2 → L2",
        "- book/b · k: 2 (sumiu)",
        "+ book/c · k: 2 (novo)",
    ]
    assert razao.diferencas(velha, nova, paginas={"book/b"}) == ["- book/b · k: 2 (sumiu)"]


# ---------------------------------------------------------------------------
# De ponta a ponta: um peso do brinquedo muda numa cópia, o build da página falha
# ---------------------------------------------------------------------------
PAGINA = "book/embeddings"    # X = E[ids] + P: depende da tabela de tokens E
CHAVE = "x5"                  # a linha do último token, x_5
MUDANCA = "\n# mudança de teste: um peso da tabela de tokens (o ␣no, último token)\nE[1][0] = E[1][0] + 1\n"


def _copia_do_repositorio(destino):
    """Os arquivos do git e os novos ainda não commitados (sem .venv, _build, node_modules)."""
    nomes = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=RAIZ,
                           check=True, capture_output=True).stdout.decode().split("\0")
    for nome in filter(None, nomes):
        if nome.split("/")[0] in (".venv", "_build", "node_modules"):
            continue
        orig = RAIZ / nome
        if orig.is_file():
            (destino / nome).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(orig, destino / nome)


def _constroi(copia):
    shutil.rmtree(copia / "_build", ignore_errors=True)
    r = subprocess.run([str(JB), "build", str(copia), "--all", "--toc", str(copia / "toc_teste.yml")],
                       cwd=copia, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"o build da cópia falhou:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    assert (copia / "_build" / "jupyter_execute" / (PAGINA + ".ipynb")).exists()


def _verifica(copia):
    return subprocess.run([str(PY), str(copia / "book/_ext/razao.py"), "verificar",
                           str(copia / "_build"), "--parcial"],
                          cwd=copia, capture_output=True, text=True, timeout=120)


@pytest.mark.lento
def test_peso_mudado_derruba_o_build_e_voltar_passa(tmp_path):
    inicio = time.time()
    lock = razao.ler_lock()
    assert CHAVE in lock.get(PAGINA, {}), f"o lock não tem {PAGINA} · {CHAVE}: escolha outra chave"
    copia = tmp_path / "livro"
    _copia_do_repositorio(copia)
    (copia / "toc_teste.yml").write_text(f"format: jb-book\nroot: {PAGINA}\n")
    brinquedo = copia / "lab" / "brinquedo.py"
    original = brinquedo.read_text(encoding="utf-8")

    brinquedo.write_text(original + MUDANCA, encoding="utf-8")
    _constroi(copia)
    r = _verifica(copia)
    assert r.returncode == 1, r.stdout + r.stderr
    velho = re.escape(lock[PAGINA][CHAVE])
    assert re.search(rf"^\s*~ {re.escape(PAGINA)} · {CHAVE}: {velho} → ", r.stdout, re.M), r.stdout
    # só a página construída é comparada: as outras não aparecem como sumidas
    outras = [ln for ln in r.stdout.splitlines() if re.match(r"^\s*[-+~] ", ln) and f" {PAGINA} · " not in ln]
    assert not outras, r.stdout

    brinquedo.write_text(original, encoding="utf-8")
    _constroi(copia)
    r = _verifica(copia)
    assert r.returncode == 0, r.stdout + r.stderr
    print(f"ida e volta em {time.time() - inicio:.0f} s")
