"""Fórmulas desenhadas no build: nenhuma linha de JavaScript de matemática na página.

Antes, cada página carregava o MathJax inteiro (tex-chtml.js, uns 300 KB comprimidos) para
desenhar as fórmulas no navegador. Agora o mesmo MathJax 3.2.2 (npm `mathjax-full`, fixado
no package.json) roda no Node no fim do build (`matematica.mjs`, ao lado) com a mesma saída
CHTML e as mesmas fontes: a página chega com as fórmulas prontas e o CSS delas no <head>.

Gancho build-finished:
- copia as fontes do MathJax (woff) para `_static/matematica/woff-v2` (o navegador só
  baixa as que a página usa);
- roda `matematica.mjs` nas páginas com fórmulas; um erro de TeX (comando desconhecido,
  chave sem par) derruba o build, com a página e a fórmula;
- tira das páginas os <script> do MathJax que o sphinx.ext.mathjax põe.
Sem o Node ou sem node_modules (uma cópia do livro só para ver as páginas), avisa e deixa as
páginas como o Sphinx as fez; no `make book` (-W) o aviso vira erro.
Os widgets não escrevem TeX (a saída deles é HTML pronto), então o site não leva o MathJax
do navegador; um widget que um dia escrever TeX terá de trazê-lo (e o pos_build.py, copiá-lo).
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

_SCRIPTS_MATHJAX = [
    re.compile(r'\s*<script>window\.MathJax = [^<]*</script>'),
    re.compile(r'\s*<script[^>]*src="[^"]*/mathjax/tex-[a-z-]+\.js[^"]*"[^>]*></script>'),
]
_TEM_MATH = re.compile(r'class="(?:[^"]*\s)?math(?:\s[^"]*)?"')


class FaltaFerramenta(ExtensionError):
    """Sem o Node ou sem node_modules: as páginas ficam com o MathJax do navegador."""


def sem_scripts_mathjax(texto: str) -> str:
    for padrao in _SCRIPTS_MATHJAX:
        texto = padrao.sub("", texto)
    return texto


def desenhar(saida: Path) -> dict:
    """Desenha as fórmulas de todas as páginas de `saida`; devolve o resumo do matematica.mjs."""
    saida = Path(saida)
    node = shutil.which("node")
    if not node:
        raise FaltaFerramenta("matematica.py: falta o Node (as fórmulas são desenhadas no build); "
                             "instale o Node 20 e rode `npm ci` (o `make book` já faz isso).")
    if not FONTES_NPM.is_dir():
        raise FaltaFerramenta("matematica.py: falta node_modules/mathjax-full: rode `npm ci` "
                             "(o `make book` já faz isso).")
    destino = saida / FONTES_SITE
    shutil.copytree(FONTES_NPM, destino, dirs_exist_ok=True)

    paginas = []
    for html in sorted(saida.rglob("*.html")):
        rel = html.relative_to(saida).as_posix()
        if rel.startswith("_"):
            continue
        texto = html.read_text(encoding="utf-8")
        novo = sem_scripts_mathjax(texto)
        if novo != texto:
            html.write_text(novo, encoding="utf-8")
        if _TEM_MATH.search(novo) or "\\(" in novo or "$$" in novo:
            paginas.append(rel)
    if not paginas:
        return {"paginas": 0, "formulas": 0, "porPagina": {}}
    # Cada página desenhada fica guardada pelo hash do HTML de entrada, do código e do MathJax
    # (guardado.py): a mesma página dá o mesmo HTML, e o Node só roda para as que mudaram.
    codigo = [(AQUI / n).read_bytes() for n in ("matematica.mjs", "matematica.py")] + [Path(guardado.__file__).read_bytes()]
    versao_mj = (RAIZ / "node_modules" / "mathjax-full" / "package.json").read_bytes()
    chaves = {rel: guardado.chave("fórmulas", (saida / rel).read_bytes(), FONTES_SITE, versao_mj, *codigo)
              for rel in paginas}
    formulas = {}   # página -> quantas fórmulas desenhadas
    faltam = []
    for rel in paginas:
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


def no_fim(app, exc):
    if exc or app.builder.format != "html":
        return
    try:
        desenhar(Path(app.outdir))
    except FaltaFerramenta as e:
        # como o pos_build.py: uma cópia do livro sem node_modules ainda sai (com o MathJax
        # no navegador, se ele estiver lá); no `make book` o aviso vira erro (-W)
        from sphinx.util import logging
        logging.getLogger(__name__).warning(f"fórmulas não desenhadas no build: {e}")


def setup(app):
    app.connect("build-finished", no_fim)
