"""Fórmulas desenhadas no build: o MathJax do package.json roda no Node (`matematica.mjs`) com a
saída CHTML do navegador, e a página chega com as fórmulas prontas e o CSS delas no <head>.

Um erro de TeX derruba o build, com a página e a fórmula. Os widgets não escrevem TeX: o site
não leva o MathJax do navegador (um widget que escrever TeX terá de trazê-lo no pos_build.py).
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from sphinx.errors import ExtensionError

from ..execucao import guardado

RAIZ = Path(__file__).resolve().parents[2]
AQUI = Path(__file__).resolve().parent
FONTES_NPM = RAIZ / "node_modules" / "mathjax-full" / "es5" / "output" / "chtml" / "fonts" / "woff-v2"
FONTES_SITE = "_static/matematica/woff-v2"

_SCRIPTS_MATHJAX = re.compile(r'\s*<script>window\.MathJax = [^<]*</script>'
                              r'|\s*<script[^>]*src="[^"]*/mathjax/tex-[a-z-]+\.js[^"]*"[^>]*></script>')
_TEM_MATH = re.compile(r'class="(?:[^"]*\s)?math(?:\s[^"]*)?"')


class FaltaFerramenta(ExtensionError):
    """Sem o Node ou sem node_modules: as páginas ficam como o Sphinx as fez."""


def sem_scripts_mathjax(texto: str) -> str:
    return _SCRIPTS_MATHJAX.sub("", texto)


def desenhar(saida: Path, paginas: dict) -> dict:
    """Desenha as fórmulas das `paginas` (caminho no site -> HTML) de `saida`; devolve o resumo."""
    saida = Path(saida)
    node = shutil.which("node")
    if not node or not FONTES_NPM.is_dir():
        raise FaltaFerramenta("matematica.py: falta o Node 20 ou o node_modules/mathjax-full (as fórmulas são "
                              "desenhadas no build): rode `npm ci` (o `make book` já faz isso).")
    shutil.copytree(FONTES_NPM, saida / FONTES_SITE, dirs_exist_ok=True)
    com_tex = sorted(rel for rel, texto in paginas.items() if not rel.startswith("_")
                     and (_TEM_MATH.search(texto) or "\\(" in texto or "$$" in texto))
    # cada página desenhada fica guardada pelo hash do HTML de entrada, do código e do MathJax
    codigo = [Path(f).read_bytes() for f in (AQUI / "matematica.mjs", __file__, guardado.__file__)]
    versao_mj = (RAIZ / "node_modules" / "mathjax-full" / "package.json").read_bytes()
    chaves = {rel: guardado.chave("fórmulas", (saida / rel).read_bytes(), FONTES_SITE, versao_mj, *codigo)
              for rel in com_tex}
    formulas = {}   # página -> quantas fórmulas desenhadas
    faltam = []
    for rel in com_tex:
        feito = guardado.ler("formulas", chaves[rel])
        if feito is None:
            faltam.append(rel)
            continue
        n, _, html = feito.partition(b"\n")
        (saida / rel).write_bytes(html)
        formulas[rel] = int(n)
    if faltam:
        r = subprocess.run([node, str(AQUI / "matematica.mjs"), str(saida), FONTES_SITE, *faltam],
                           capture_output=True, text=True, cwd=RAIZ)
        if r.returncode != 0:
            raise ExtensionError("matematica.py: o MathJax não desenhou as fórmulas:\n"
                                 + (r.stderr.strip() or r.stdout.strip()))
        novo = json.loads(r.stdout.strip().splitlines()[-1])
        for rel in faltam:
            formulas[rel] = novo["porPagina"].get(rel, 0)
            guardado.guardar("formulas", chaves[rel], f"{formulas[rel]}\n".encode() + (saida / rel).read_bytes())
    com = {rel: n for rel, n in formulas.items() if n}
    return {"paginas": len(com), "formulas": sum(com.values()), "porPagina": com}
