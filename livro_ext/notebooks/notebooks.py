"""Um notebook por página executável, que roda sozinho (Jupyter, Colab): `_notebooks/<página>.ipynb`
no site, e os botões do `.ipynb` e do Colab na página. O que ele traz: CONTRIBUINDO.md ("Acrescentar
uma página", item 5); o MyST vira Markdown comum em notebooks_md.py."""
from __future__ import annotations

import copy
import functools
import html
import json
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.utils import canonicalize_name

from ..widgets import navegador
from ..execucao.importacoes import importacoes
from ..livro import URL_GITHUB
from .notebooks_md import Conversor

PASTA = "_notebooks"
RAIZ = Path(__file__).resolve().parents[2]

# páginas cujo Colab abre outro notebook (do repositório, publicado com os endereços de quem o construiu)
COLAB_DA_PAGINA = {"book/laboratorio": "lab/laboratorio_gpt2.ipynb"}

# Módulos que o Colab já traz instalados: o resto ganha um `%pip install` no notebook.
# (Conferido num ambiente do Colab; a lista é curta de propósito: na dúvida, instala.)
COLAB_TEM = {"IPython", "PIL", "huggingface_hub", "jinja2", "matplotlib", "numpy", "pandas", "requests",
             "safetensors", "scipy", "sympy", "tokenizers", "torch", "tqdm", "transformers", "yaml"}
# Importados só dentro de `try: ... except ImportError`, com outro caminho quando faltam.
OPCIONAIS = {"myst_nb"}
_IMPORT_GLUE = re.compile(r"^(?P<ind>[ \t]*)from myst_nb import glue[ \t]*(#.*)?$", re.M)
RECOLHIDAS = {"remove-cell", "remove-input", "hide-input", "hide-cell"}
SEM_SAIDA = {"remove-cell", "remove-output"}  # o leitor do site não vê essas saídas


class ErroNotebook(Exception):
    pass


# ---------------------------------------------------------------------------
# O notebook
# ---------------------------------------------------------------------------
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


def modulos_externos(codigos: list[str]) -> set:
    """Os módulos de fora da biblioteca padrão e do pacote livro que os códigos importam
    (`importacoes` conta também `find_spec("x")`; os imports opcionais ficam de fora)."""
    nomes = {i.modulo.split(".")[0] for codigo in codigos for i in importacoes(codigo)
             if not i.opcional and i.modulo and not i.nivel}
    return nomes - set(sys.stdlib_module_names) - OPCIONAIS - {navegador.NOME}


def fixados(requirements: Path = RAIZ / "requirements.txt") -> dict:
    """{nome normalizado: 'nome==versão'} do requirements.txt."""
    linhas = (ln.split("#", 1)[0].strip() for ln in Path(requirements).read_text(encoding="utf-8").splitlines())
    return {canonicalize_name(ln.split("==", 1)[0]): ln for ln in linhas if "==" in ln}


@functools.lru_cache(maxsize=1)
def _distribuicoes() -> dict:
    """{módulo: [distribuições]}, lido uma vez por build."""
    return packages_distributions()


def a_instalar(modulos: set, requirements: Path = RAIZ / "requirements.txt") -> list[str]:
    """Os pacotes fixados ('nome==versão') para os módulos que o Colab não traz."""
    fix = fixados(requirements)
    pacotes = set()
    for m in sorted(modulos - COLAB_TEM):
        achado = next((fix[n] for n in map(canonicalize_name, _distribuicoes().get(m, [m])) if n in fix), None)
        if achado is None:
            raise ErroNotebook(f"o módulo {m!r} não está fixado no requirements.txt")
        pacotes.add(achado)
    return sorted(pacotes)


def celula_pip(pacotes: list[str]) -> str:
    return ("#@title Instala o que o Colab não traz\n"
            "# (no seu computador, com o requirements.txt do livro, nada muda)\n"
            f"%pip install -q {' '.join(pacotes)}\n")


def recolhe(celula: dict) -> None:
    """Recolhe o código no JupyterLab e no Colab: `#@title` (o primeiro comentário, que sai do
    corpo) na primeira linha e `cellView: "form"` mostram só o título."""
    fonte = celula["source"]
    if not fonte.startswith("#@title"):
        primeira, _, resto = fonte.partition("\n")
        celula["source"] = f"#@title {_titulo(fonte)}\n" + (resto if primeira.startswith("# ") else fonte)
    celula["metadata"].setdefault("jupyter", {})["source_hidden"] = True
    celula["metadata"]["cellView"] = "form"


def _titulo(fonte: str) -> str:
    """O título do formulário do Colab: o primeiro comentário da célula, se houver."""
    for ln in fonte.splitlines():
        ln = ln.strip()
        if ln.startswith("#") and len(ln.lstrip("# ")) > 3:
            return ln.lstrip("# ").rstrip(".:")
        if ln:
            break
    return "Contas da página (os valores que o texto mostra)"


def _fonte(c):
    return "".join(c["source"]) if isinstance(c["source"], list) else c["source"]


def _nova(fonte: str, tag: str) -> dict:
    celula = {"cell_type": "code", "execution_count": None, "outputs": [], "metadata": {"tags": [tag]},
              "source": fonte}
    recolhe(celula)
    return celula


def montar(executado: Path, pasta_exec: Path, docname: str, url_pagina, url_site: str = "",
           titulo_livro: str = "", titulo_pagina: str = "", substituicoes=None) -> tuple[dict, list]:
    """O notebook executado pelo myst-nb -> (notebook autônomo, avisos)."""
    nb = json.loads(Path(executado).read_text(encoding="utf-8"))
    codigos = [_fonte(c) for c in nb["cells"] if c["cell_type"] == "code"]
    precisa, _ = navegador.arquivos_do_pacote(codigos)
    conv = Conversor(pasta_exec, docname, url_pagina, url_site, substituicoes)
    celulas = []
    for c in copy.deepcopy(nb["cells"]):
        c.pop("id", None)
        c["source"] = _fonte(c)
        tags = set(c.get("metadata", {}).get("tags", []) or [])
        # a célula da chave do cache só serve ao build (livro_ext/execucao/chave_cache.py)
        if "chave-do-cache" in tags or c["cell_type"] == "raw":
            continue
        if c["cell_type"] == "markdown":
            c["source"] = conv.markdown(c["source"])
            if not c["source"].strip():
                continue
        elif c["cell_type"] == "code":
            if _IMPORT_GLUE.search(c["source"]):
                raise ErroNotebook("a página usa `from myst_nb import glue`: cole com `cola` de livro.paginas")
            if tags & RECOLHIDAS:
                recolhe(c)
            if tags & SEM_SAIDA:
                c["outputs"], c["execution_count"] = [], None
            if "hide-output" in tags:
                c["metadata"].setdefault("jupyter", {})["outputs_hidden"] = True
        celulas.append(c)

    arquivos = ", ".join(f"`{a}`" for a in precisa)
    aviso = {
        "cell_type": "markdown", "metadata": {},
        "source": (f"> Notebook da página [{titulo_pagina or docname.split('/')[-1]}]({url_pagina(docname)}) "
                   f"do livro *{titulo_livro or 'Transformers: do texto ao próximo token'}*. "
                   "Rode as células em ordem. As células recolhidas (com título) preparam "
                   "o terreno e fazem as contas que o texto mostra: a primeira grava, numa pasta "
                   f"`livro/` ao lado do notebook, o que a página usa do pacote do livro ({arquivos})."),
    }
    codigos += [(navegador.BASE / a).read_text(encoding="utf-8") for a in precisa if a.endswith(".py")]
    pacotes = a_instalar(modulos_externos(codigos))
    novas = [aviso, *([_nova(celula_pip(pacotes), "instalacao")] if pacotes else []),
             _nova(celula_preparo(precisa), "preparacao")]
    # o título (primeira célula de markdown com "# ") fica no topo
    pos = 1 if celulas and celulas[0]["cell_type"] == "markdown" and celulas[0]["source"].lstrip().startswith("# ") else 0
    celulas[pos:pos] = novas
    for k, c in enumerate(celulas, 1):
        c["id"] = f"celula-{k:02d}"
        c["source"] = c["source"].splitlines(keepends=True)
    meta = {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "colab": {"provenance": []},
    }
    return {"cells": celulas, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}, conv.avisos


# ---------------------------------------------------------------------------
# Sphinx
# ---------------------------------------------------------------------------
def url_do_site(app) -> str:
    """O endereço do site: o html_baseurl, ou o do GitHub Pages do repositório."""
    base = (app.config.html_baseurl or "").strip()
    if base:
        return base.rstrip("/") + "/"
    m = URL_GITHUB.match((app.config.html_theme_options or {}).get("repository_url") or "")
    if not m:
        return ""
    org, repo = m.groups()
    return f"https://{repo}/" if repo.lower() == f"{org.lower()}.github.io" else f"https://{org}.github.io/{repo}/"


def publica_notebooks_do_lab(app, excecao):
    """build-finished: os notebooks de COLAB_DA_PAGINA, com os endereços deste repositório."""
    if excecao is not None or app.builder.format != "html":
        return
    from livro.gpt2 import notebook as gerador

    repo_url = (app.config.myst_substitutions or {}).get("repo_url")
    ramo = (app.config.html_theme_options or {}).get("repository_branch") or "main"
    for caminho in sorted(set(COLAB_DA_PAGINA.values())):
        destino = Path(app.outdir) / PASTA / caminho
        destino.parent.mkdir(parents=True, exist_ok=True)
        destino.write_text(gerador.gera(gerador.url_lab(repo_url=repo_url, ramo=ramo)), encoding="utf-8")


def na_pagina(app, pagename, templatename, context, doctree):
    """html-page-context: o notebook da página e os botões do .ipynb e do Colab."""
    from sphinx.util import logging

    log = logging.getLogger(__name__)
    pasta_exec = Path(app.outdir).parent / "jupyter_execute"
    executado = pasta_exec / (pagename + ".ipynb")
    if app.builder.format != "html" or "kernelspec" not in app.env.metadata.get(pagename, {}) or not executado.exists():
        return
    site = url_do_site(app)
    titulo = html.unescape(re.sub(r"<[^>]+>", "", context.get("title", "")))
    try:
        nb, avisos = montar(executado, pasta_exec, pagename, lambda doc: f"{site}{doc}.html", site,
                            app.config.html_title or app.config.project, titulo, app.config.myst_substitutions)
    except Exception as e:  # um notebook que não se monta é um erro do build
        log.warning(f"notebook de {pagename}: {e!r}", type="livro", subtype="notebook")
        return
    for a in avisos:
        log.warning(f"notebook de {pagename}: {a}", type="livro", subtype="notebook")
    caminho = f"{PASTA}/{pagename}.ipynb"
    destino = Path(app.outdir) / caminho
    destino.parent.mkdir(parents=True, exist_ok=True)
    destino.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    botoes = context.get("header_buttons")
    if botoes is None:
        return
    baixar = {"type": "link", "url": context["pathto"](caminho, 1), "text": ".ipynb", "icon": "fas fa-code",
              "tooltip": "Baixar o notebook (roda sozinho)", "label": "download-notebook-button"}
    for b in botoes:  # no lugar do .ipynb do tema (o da página MyST, com o glue cru)
        if b.get("label") == "download-buttons":
            b["buttons"] = [baixar] + [x for x in b["buttons"] if x.get("label") != "download-notebook-button"]
            break
    colab_site = (app.config.myst_substitutions or {}).get("colab_site")
    if colab_site:
        # um botão direto (o logo do Colab) na barra da página, antes do menu de download
        botao = {
            "type": "link", "url": f"{colab_site}/{COLAB_DA_PAGINA.get(pagename, pagename + '.ipynb')}",
            "text": "Colab",
            "tooltip": ("Abrir no Colab o notebook de duas horas do laboratório"
                        if pagename in COLAB_DA_PAGINA else "Abrir no Colab"),
            "icon": "_static/images/logo_colab.png", "label": "colab-button",
            "classes": "pst-navbar-icon",
        }
        botoes[:] = [b for b in botoes if b.get("label") not in ("launch-buttons", "colab-button")]
        pos = next((k for k, b in enumerate(botoes) if b.get("label") == "download-buttons"), 0)
        botoes.insert(pos, botao)


def alt_do_colab(app, exc):
    """O tema escreve o texto alternativo do ícone do Colab em inglês (macros/buttons.html): troca-o."""
    if exc or app.builder.format != "html":
        return
    for pagina in Path(app.outdir).rglob("*.html"):
        texto = pagina.read_text(encoding="utf-8")
        if 'alt="Colab logo"' in texto:
            pagina.write_text(texto.replace('alt="Colab logo"', 'alt="Logotipo do Colab"'), encoding="utf-8")


def setup(app):
    # depois do sphinx-book-theme (prioridade 501), que monta os botões do cabeçalho
    app.connect("html-page-context", na_pagina, priority=502)
    app.connect("build-finished", publica_notebooks_do_lab)
    app.connect("build-finished", alt_do_colab)
