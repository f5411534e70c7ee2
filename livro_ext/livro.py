"""Extensões Sphinx do livro: reúne as peças (widgets, notebooks, razão de números).

E segue o repositório: construído pelo GitHub Actions (que define GITHUB_REPOSITORY, ex.:
`fulana/transformers-livro`), o site aponta o botão do repositório, os links para o Colab e
os links para arquivos de `lab/` para o repositório que o construiu. Assim um fork publica
links que funcionam sem editar nada. Fora do Actions vale `repository.url` do `_config.yml`.

As páginas usam os endereços pelas substituições do MyST (ver `enderecos`), por exemplo
`{{ '[o notebook]({}/lab/laboratorio_gpt2.ipynb)'.format(repo_blob) }}`.
"""
import os
import re

RAMO_PUBLICADO = "gh-pages"  # o ramo que o workflow pages.yml escreve (o site construído)
_DONO_NOME = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
# o endereço de um repositório no GitHub: dono e nome (os notebooks e o PDF também a usam)
URL_GITHUB = re.compile(r"^https?://github\.com/([^/]+)/([^/]+?)(?:\.git)?/?$")


def repositorio(url_config, ambiente=None):
    """O endereço do repositório: o do GITHUB_REPOSITORY, se houver; senão `url_config`."""
    ambiente = os.environ if ambiente is None else ambiente
    repo = (ambiente.get("GITHUB_REPOSITORY") or "").strip()
    if _DONO_NOME.fullmatch(repo):
        return f"https://github.com/{repo}"
    return (url_config or "").strip().rstrip("/")


def enderecos(url, ramo="main"):
    """As substituições do MyST com os endereços do repositório `url` (https://github.com/d/n)."""
    m = URL_GITHUB.match(url or "")
    if not m:
        return {}
    dono_nome = f"{m.group(1)}/{m.group(2)}"
    return {
        "repo_url": f"https://github.com/{dono_nome}",
        "repo_blob": f"https://github.com/{dono_nome}/blob/{ramo}",
        "repo_raw": f"https://raw.githubusercontent.com/{dono_nome}/{ramo}",
        # o Colab abre os notebooks do site publicado (ramo gh-pages, pasta _notebooks)
        "colab_site": f"https://colab.research.google.com/github/{dono_nome}/blob/{RAMO_PUBLICADO}/_notebooks",
    }


def no_config(app, config):
    """config-inited: troca o repositório do _config.yml pelo do Actions, se houver."""
    opcoes = dict(config.html_theme_options or {})
    url = repositorio(opcoes.get("repository_url", ""))
    if url:
        opcoes["repository_url"] = url
    config.html_theme_options = opcoes
    subs = dict(config.myst_substitutions or {})
    subs.update(enderecos(url, opcoes.get("repository_branch") or "main"))
    config.myst_substitutions = subs


def setup(app):
    # cada peça é um módulo do pacote com setup(app) (o que ele devolve não conta: só este setup
    # diz ao Sphinx que o livro lê e escreve em paralelo)
    from .tema import exercicios, linhas, referencias_ptbr, tema
    from .execucao import chave_cache, zigoto
    from .notebooks import notebooks
    from .trava import razao_pagina
    from .widgets import widgets

    app.connect("config-inited", no_config)
    app.connect("builder-inited", zigoto.ligar)  # os kernels das páginas nascem do zigoto
    for peca in (widgets, notebooks, razao_pagina, linhas, tema, referencias_ptbr, chave_cache, exercicios):
        peca.setup(app)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
