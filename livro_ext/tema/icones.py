"""Ícones sem o Font Awesome inteiro: só os glifos que o livro mostra (dev/MEDIDAS.md).

As páginas perdem o `fontawesome.js` (o CSS do tema desenha os ícones); cada fonte vira um
subconjunto .woff com os glifos usados, e o CSS do tema aponta para eles sem as regras que sobram.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..execucao import guardado

_SCRIPT_FA = re.compile(r'\s*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>')
_ICONE = re.compile(r'<(i|span) (class="[^"]*\bfa[a-z]?\b[^"]*"'
                    r'|class="[^"]*\bfa-(?:solid|regular|brands)\b[^"]*")([^>]*)>')
_CLASSES = re.compile(r'class="([^"]*\bfa[^"]*)"')
_CLASSE_FA = re.compile(r"\bfa-([a-z0-9-]+)")
_FONTE = re.compile(r"src:url\(\.\./vendor/fontawesome/webfonts/(fa-[a-z]+-\d+)\.woff2\) format\(\"woff2\"\),"
                    r"url\(\.\./vendor/fontawesome/webfonts/\1\.ttf\) format\(\"truetype\"\)")
FONTES = ["fa-solid-900", "fa-regular-400", "fa-brands-400"]
SUFIXO = ".livro.woff"


def sem_script(texto: str) -> str:
    """A página sem o <script> do fontawesome.js, e cada ícone com aria-hidden (o nome está no botão)."""
    def rotulo(m):
        resto = m.group(3)
        if "aria-hidden" in resto:
            return m.group(0)
        return f'<{m.group(1)} {m.group(2)} aria-hidden="true"{resto}>'
    return _ICONE.sub(rotulo, _SCRIPT_FA.sub("", texto))


def codigos_css(css: str) -> dict[str, int]:
    """Classe fa-* -> ponto de código, lido das regras .fa-x:before{content:"\\f002"} do CSS."""
    mapa = {}
    # a regra começa depois de um "}" (ou no começo): sem isso, a busca levava 0,7 s
    for seletores, cod in re.findall(r"(?:(?<=[}])|^)([^{}]+)\{content:\"\\([0-9a-f]{2,5})\"\}", css):
        for nome in re.findall(r"\.fa-([a-z0-9-]+):{1,2}before", seletores):
            mapa[nome] = int(cod, 16)
    return mapa


def codigos_variaveis(css: str) -> set[int]:
    """Os pontos de código das variáveis de ícone (--pst-icon-*, a divisória da trilha)."""
    cods = set()
    for valor in re.findall(r"--pst-(?:icon-[a-z0-9-]+|breadcrumb-divider):\s*\"([^\"]*)\"", css):
        for cod in re.findall(r"\\([0-9a-f]{2,5})", valor):
            cods.add(int(cod, 16))
        cods.update(ord(c) for c in re.sub(r"\\[0-9a-f]{2,5}", "", valor))
    return cods


def sem_regras_sobrando(css: str, usados: set[str]) -> str:
    """Tira as regras .fa-x:before{content:"…"} dos ícones que nenhuma página usa (são ~2.400)."""
    def regra(m):
        nomes = re.findall(r"\.fa-([a-z0-9-]+):{1,2}before", m.group(1))
        sobra = re.sub(r"\.fa-[a-z0-9-]+:{1,2}before|,|\s", "", m.group(1))
        if sobra or not nomes or any(n in usados for n in nomes):
            return m.group(0)
        return ""
    return re.sub(r"(?<=[}])([^{}]+)\{content:\"\\[0-9a-f]{2,5}\"\}", regra, css)


def subconjunto(origem: Path, destino: Path, codigos: set[int]) -> int:
    """Escreve em `destino` (.woff) a fonte `origem` só com `codigos`; devolve quantos havia nela.

    Guardado (guardado.py) pelo hash da fonte, dos códigos, da versão do fontTools e deste código."""
    import fontTools
    from fontTools import subset
    from fontTools.ttLib import TTFont

    k = guardado.chave("ícones", Path(origem).read_bytes(), sorted(codigos), fontTools.version,
                       Path(__file__).read_bytes(), Path(guardado.__file__).read_bytes())
    feito = guardado.ler("icones", k)
    if feito is None:
        # a data da fonte original, não a hora do build: o mesmo subconjunto, os mesmos bytes
        fonte = TTFont(origem, recalcTimestamp=False)
        quero = sorted(codigos & set(fonte.getBestCmap()))
        # name_IDs "*": a licença (SIL OFL) vai junto
        opcoes = subset.Options(flavor="woff", layout_features=[], name_IDs=["*"], notdef_outline=True)
        sub = subset.Subsetter(opcoes)
        sub.populate(unicodes=quero)
        sub.subset(fonte)
        fonte.flavor = "woff"
        fonte.save(destino)
        feito = f"{len(quero)}\n".encode() + Path(destino).read_bytes()
        guardado.guardar("icones", k, feito)
    n, _, woff = feito.partition(b"\n")
    Path(destino).write_bytes(woff)
    return int(n)


def aplicar(saida: Path, paginas):
    """Os subconjuntos e o CSS do tema, com os ícones das `paginas` (os HTML, já sem o script) e dos scripts."""
    static = Path(saida) / "_static"
    css_tema = static / "styles" / "pydata-sphinx-theme.css"
    if not css_tema.exists():
        return
    css = css_tema.read_text(encoding="utf-8")
    usados = {n for texto in paginas for cls in _CLASSES.findall(texto) for n in _CLASSE_FA.findall(cls)}
    for js in (static / "scripts").glob("*.js"):
        if js.name != "fontawesome.js":
            usados.update(_CLASSE_FA.findall(js.read_text(encoding="utf-8")))
    mapa = codigos_css(css)
    codigos = {mapa[n] for n in usados if n in mapa} | codigos_variaveis(css)

    pasta = static / "vendor" / "fontawesome" / "webfonts"
    for nome in FONTES:
        if (pasta / f"{nome}.ttf").exists():
            subconjunto(pasta / f"{nome}.ttf", pasta / f"{nome}{SUFIXO}", codigos)
    if SUFIXO in css and not any(f"{n}.woff2" in css for n in FONTES):
        return  # o CSS já aponta para os subconjuntos (build incremental)
    novo = _FONTE.sub(lambda m: f'src:url(../vendor/fontawesome/webfonts/{m.group(1)}{SUFIXO}) format("woff")', css)
    if novo == css or any(f"{n}.woff2" in novo for n in FONTES):
        raise RuntimeError("icones.py: as @font-face do Font Awesome mudaram no pydata-sphinx-theme.css; "
                           "atualize _FONTE")
    css_tema.write_text(sem_regras_sobrando(novo, usados), encoding="utf-8")
