"""Gera lab/laboratorio_gpt2.ipynb a partir de lab/laboratorio_gpt2.py (formato "percent").

    python -m livro.gpt2.notebook            # (re)escreve o .ipynb
    python -m livro.gpt2.notebook --confere  # sai com erro se o .ipynb estiver velho

Cada `# %%` abre uma célula de código; `# %% [markdown]` abre uma de texto (sem o "# " do
começo das linhas). Uma célula de código que começa por `#@title` fica recolhida (no Colab,
um formulário com o título; no JupyterLab, o código escondido). O endereço de onde o Colab baixa os arquivos do laboratório sai do
`_config.yml` da raiz (repository.url e branch), e a lista deles, de `ARQUIVOS` em livro/gpt2/lab.py. O .ipynb vai sem saídas.
"""
import argparse
import ast
import json
import os
import re
import sys
import textwrap

# este arquivo mora em lab/livro/gpt2/; a fonte e o notebook, em lab/
LAB = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RAIZ = os.path.dirname(LAB)
FONTE = os.path.join(LAB, "laboratorio_gpt2.py")
DESTINO = os.path.join(LAB, "laboratorio_gpt2.ipynb")
CONFIG = os.path.join(RAIZ, "_config.yml")


def url_lab(config=CONFIG, repo_url=None, ramo=None):
    """https://raw.githubusercontent.com/DONO/REPO/RAMO/lab/.

    Sem `repo_url`, o repositório e o ramo vêm do _config.yml do livro (é o que o .ipynb do
    repositório guarda). O build do site passa o repositório que o construiu (ver
    livro_ext/livro.py): o notebook publicado num fork baixa os arquivos do fork.
    """
    texto = open(config, encoding="utf-8").read()
    bloco = texto.split("\nrepository:", 1)[1]
    url = repo_url or re.search(r"^\s+url:\s*(\S+)", bloco, re.M).group(1)
    achado = re.search(r"^\s+branch:\s*(\S+)", bloco, re.M)
    ramo = ramo or (achado.group(1) if achado else "main")
    dono_repo = url.rstrip("/").split("github.com/", 1)[1]
    return f"https://raw.githubusercontent.com/{dono_repo}/{ramo}/lab/"


def arquivos():
    """A tupla ARQUIVOS de livro/gpt2/lab.py (o que o Colab baixa), lida sem importar o lab (e o torch)."""
    arvore = ast.parse(open(os.path.join(LAB, "livro", "gpt2", "lab.py"), encoding="utf-8").read())
    return next(ast.literal_eval(n.value) for n in arvore.body
                if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "ARQUIVOS")


def celulas(texto):
    """Lista de (tipo, fonte) a partir do texto no formato percent."""
    linhas = texto.splitlines()
    if linhas and linhas[0].strip() == "# ---":          # o cabeçalho do jupytext
        fim = linhas.index("# ---", 1)
        linhas = linhas[fim + 1:]
    saida, tipo, atual = [], None, []

    def fecha():
        if tipo is None:
            return
        corpo = atual
        if tipo == "markdown":
            corpo = [l[2:] if l.startswith("# ") else l.lstrip("#") for l in corpo]
        while corpo and not corpo[0].strip():
            corpo = corpo[1:]
        while corpo and not corpo[-1].strip():
            corpo = corpo[:-1]
        saida.append((tipo, "\n".join(corpo)))

    for linha in linhas:
        if linha.startswith("# %%"):
            fecha()
            tipo, atual = ("markdown" if "[markdown]" in linha else "code"), []
        else:
            atual.append(linha)
    fecha()
    return saida


def notebook(texto, url):
    cells = []
    lista = textwrap.fill("ARQUIVOS = (" + ", ".join(f'"{a}"' for a in arquivos()) + ")", width=100,
                          subsequent_indent=" " * 12, break_long_words=False, break_on_hyphens=False)
    for i, (tipo, fonte) in enumerate(celulas(texto)):
        fonte = fonte.replace("{{URL_LAB}}", url).replace('ARQUIVOS = ("{{ARQUIVOS}}",)', lista)
        cel = {"cell_type": tipo, "id": f"c{i:02d}", "metadata": {},
               "source": fonte.splitlines(keepends=True)}
        if tipo == "code":
            cel.update(execution_count=None, outputs=[])
            if fonte.startswith("#@title"):
                # recolhida: no Colab (formulário com o título) e no JupyterLab
                cel["metadata"] = {"cellView": "form", "jupyter": {"source_hidden": True}}
        cells.append(cel)
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            "colab": {"provenance": []},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def gera(url=None):
    nb = notebook(open(FONTE, encoding="utf-8").read(), url or url_lab())
    return json.dumps(nb, ensure_ascii=False, indent=1) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--confere", action="store_true", help="só conferir se o .ipynb está em dia")
    args = ap.parse_args(argv)
    novo = gera()
    if args.confere:
        velho = open(DESTINO, encoding="utf-8").read() if os.path.exists(DESTINO) else ""
        if velho != novo:
            print(f"{DESTINO} está velho: rode python -m livro.gpt2.notebook")
            return 1
        print("notebook em dia")
        return 0
    with open(DESTINO, "w", encoding="utf-8") as f:
        f.write(novo)
    print(f"escrito {DESTINO}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
