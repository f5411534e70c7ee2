"""O tema do livro: tudo em português, console limpo, busca sem acento.

- Opções do sphinx-book-theme que o `_config.yml` do Jupyter Book não deixa pôr sem
  reescrever o dicionário inteiro (`TEMA`, somadas às que ele gera): texto da busca,
  título do sumário da página, cabeçalho sem segunda busca; e o modo de cor padrão
  (`html_context`).
- Referências: itens da lista com role="listitem" (o docutils usa "doc-biblioentry").
- Scripts em dobro: o sphinx-thebe (e o togglebutton) registram o mesmo `<script>` duas
  vezes; o segundo `const THEBE_JS_URL` derruba a página com um erro no console.
- Busca sem acento: o índice e a consulta passam pelo mesmo `sem_acento` antes do
  radical (stemmer) do português, então "atencao" acha "atenção". Os trechos dos
  resultados saem sem o LaTeX cru das fórmulas (`_static/tema.js`).

- Rolagens: o tabindex de quem rola de lado é só do livro (`_static/tema.js`); a medida do
  pydata-sphinx-theme, que forçava o layout da página inteira, sai do script dele.

Os textos do pydata-sphinx-theme que faltam em pt_BR estão em `book/_locale` (sphinx.po);
os do sphinx-book-theme sem catálogo, em `book/_templates`; o rótulo do sumário de
impressão do layout.html é trocado no fim do build (`rotulos_do_layout`).
"""
from __future__ import annotations

import unicodedata
from pathlib import Path

from sphinx.search.pt import SearchPortuguese

TEMA = {
    "search_bar_text": "Buscar no livro…",
    "toc_title": "Nesta página",
    # o pydata 0.17 põe uma busca num cabeçalho acima do livro; a do menu lateral basta
    "navbar_persistent": [],
}


def sem_acento(texto: str) -> str:
    """'atenção' -> 'atencao' (tira os sinais diacríticos, mantém as letras)."""
    decomposto = unicodedata.normalize("NFD", texto)
    return "".join(c for c in decomposto if not unicodedata.combining(c))




def _js_minificado(nome: str) -> str:
    import sphinx
    return (Path(sphinx.__file__).parent / "search" / "minified-js" / nome).read_text(encoding="utf-8")


class SearchPortuguesSemAcento(SearchPortuguese):
    """O português do Sphinx, com o mesmo `sem_acento` no Python (índice) e no JS (consulta)."""

    js_stemmer_rawcode = ""  # o código vai inteiro em js_stemmer_code (language_data.js)

    def init(self, options):
        super().init(options)
        self.js_stemmer_code = (
            _js_minificado("base-stemmer.js") + "\n" + _js_minificado("portuguese-stemmer.js") + "\n"
            "var Stemmer = function() {\n"
            "  var radical = new PortugueseStemmer();\n"
            "  this.stemWord = function(w) {\n"
            "    return radical.stemWord(w.normalize('NFD').replace(/[\\u0300-\\u036f]/g, ''));\n"
            "  };\n"
            "};\n")

    def stem(self, word: str) -> str:
        # guardado por palavra: o índice pede o radical da mesma palavra milhares de vezes.
        # Com o PyStemmer instalado (requirements.txt), o snowballstemmer usa o Snowball em C:
        # os mesmos radicais (conferido em todas as palavras do livro), ~20 vezes mais rápido.
        radicais = self.__dict__.setdefault("_radicais", {})
        if word not in radicais:
            radicais[word] = super().stem(sem_acento(word.lower()))
        return radicais[word]


def opcoes_do_tema(app, config):
    opcoes = dict(config.html_theme_options or {})
    opcoes.update(TEMA)
    config.html_theme_options = opcoes
    # sem isto o tema escreve data-mode="" e reclama no console ("invalid theme mode")
    config.html_context = {"default_mode": "auto", **(config.html_context or {})}


# Scripts do tema e das extensões que esperam o DOM (DOMContentLoaded ou `_ready`) e por isso
# podem sair com defer: na ordem de antes, mas sem parar a leitura do HTML nem o primeiro
# desenho. O documentation_options.js fica como está: os <script> embutidos da página o usam.
ADIAVEIS = {"doctools.js", "sphinx_highlight.js", "clipboard.min.js", "copybutton.js",
            "sphinx-book-theme.js", "togglebutton.js", "translations.js", "design-tabs.js"}


def _adiado(js):
    """O mesmo <script>, com defer, se ele é um dos ADIAVEIS e ainda não é async/defer."""
    from sphinx.builders.html._assets import _JavaScript

    nome = str(getattr(js, "filename", "") or "").split("?")[0].rsplit("/", 1)[-1]
    attrs = dict(getattr(js, "attributes", None) or {})
    if nome not in ADIAVEIS or "async" in attrs or "defer" in attrs or attrs.get("body"):
        return js
    return _JavaScript(js.filename, priority=js.priority, **attrs, defer="defer")


def ajustar_pagina(app, pagename, templatename, context, doctree):
    vistos, unicos = set(), []
    for js in context.get("script_files", []):
        # mesmo arquivo e mesmos atributos (o corpo de um script embutido é o atributo
        # "body"); um script embutido aparece uma vez com filename None e outra com ""
        chave = (str(getattr(js, "filename", js) or ""), tuple(sorted((getattr(js, "attributes", None) or {}).items())))
        if chave in vistos:
            continue
        vistos.add(chave)
        unicos.append(js)
    # (na página da busca, o searchtools.js usa o doctools.js logo ao carregar: lá, nada muda)
    context["script_files"][:] = unicos if pagename == "search" else [_adiado(js) for js in unicos]
    # A lista de referências do docutils é role="list" com itens role="doc-biblioentry",
    # papel que o ARIA 1.2 aposentou: o axe acusa lista sem itens (aria-required-children).
    if "body" in context and 'role="doc-biblioentry"' in context["body"]:
        context["body"] = context["body"].replace('role="doc-biblioentry"', 'role="listitem"')


def rotulos_do_layout(app, exc):
    """O layout.html do sphinx-book-theme tem um rótulo fixo em inglês no sumário de
    impressão (<nav aria-label="Page">); trocá-lo exigiria copiar o layout inteiro."""
    if exc or app.builder.format != "html":
        return
    for html in Path(app.outdir).rglob("*.html"):
        texto = html.read_text(encoding="utf-8")
        if '<nav aria-label="Page">' in texto:
            html.write_text(texto.replace('<nav aria-label="Page">', '<nav aria-label="Nesta página">'),
                            encoding="utf-8")


# --- Descrição da página (<meta name="description">) --------------------------------------
DESCRICOES_FIXAS = {  # páginas sem texto próprio (geradas pelo Sphinx)
    "genindex": "Índice remissivo do livro Transformers: do texto ao próximo token.",
    "search": "Busca no livro Transformers: do texto ao próximo token, com ou sem acentos.",
}
TAMANHO_DESCRICAO = 200


def _dentro_de_caixa(no):
    """O parágrafo está num aviso, lista, tabela, figura, saída de célula ou resposta recolhida?"""
    from docutils import nodes

    pai = no.parent
    while pai is not None:
        if isinstance(pai, (nodes.Admonition, nodes.list_item, nodes.table, nodes.figure,
                            nodes.footnote, nodes.citation, nodes.raw)):
            return True
        classes = " ".join(pai.get("classes", [])) if hasattr(pai, "get") else ""
        if "cell_output" in classes or "sd-" in classes or "dropdown" in classes:
            return True
        pai = pai.parent
    return False


_TEX_PARA_TEXTO = {r"\times": "×", r"\sqrt": "√", r"\top": "ᵀ", r"\cdot": "·", r"\to": "→",
                   r"\approx": "≈", r"\le": "≤", r"\ge": "≥", r"\infty": "∞", r"\sigma": "σ",
                   r"\mu": "μ", r"\epsilon": "ε", r"\gamma": "γ", r"\beta": "β"}


def _texto_simples(no):
    """O texto de um nó, com as fórmulas em texto simples ($d = 4$ -> d = 4; \\times -> ×)."""
    import re

    from docutils import nodes

    if isinstance(no, nodes.math):
        t = re.sub(r"\\[a-zA-Z]+", lambda m: _TEX_PARA_TEXTO.get(m.group(), ""), no.astext())
        return re.sub(r"[{}]", "", t).replace("\\", "")
    if isinstance(no, nodes.Text):
        return str(no)
    return "".join(_texto_simples(filho) for filho in no.children)


def descricao_da_pagina(doctree, titulo):
    """O título e o primeiro parágrafo de texto corrido da página (sem fórmulas), cortado numa
    palavra perto de TAMANHO_DESCRICAO caracteres."""
    from docutils import nodes

    texto = ""
    for p in doctree.findall(nodes.paragraph):
        if _dentro_de_caixa(p):
            continue
        texto = " ".join(_texto_simples(p).split())
        if len(texto) >= 60:
            break
    inteiro = f"{titulo}. {texto}".strip() if texto else titulo
    if len(inteiro) > TAMANHO_DESCRICAO:
        inteiro = inteiro[:TAMANHO_DESCRICAO].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return inteiro


def meta_descricao(app, pagename, templatename, context, doctree):
    """Toda página ganha uma descrição em português (a do html_meta da página, se houver)."""
    import html as _html

    metatags = context.get("metatags", "") or ""
    if 'name="description"' in metatags:
        return
    titulo = _html.unescape(str(context.get("title", "")))
    titulo = " ".join(__import__("re").sub(r"<[^>]+>", "", titulo).split())
    if pagename in DESCRICOES_FIXAS or doctree is None:
        desc = DESCRICOES_FIXAS.get(pagename, f"{titulo}: uma página do livro Transformers: do texto ao próximo token.")
    else:
        desc = descricao_da_pagina(doctree, titulo)
    context["metatags"] = metatags + f'\n<meta name="description" content="{_html.escape(desc, quote=True)}" />'


# --- Textos em inglês dos scripts de extensões (sphinx-togglebutton, sphinx-copybutton) ----
TROCAS_NOS_SCRIPTS = {
    "togglebutton.js": [('aria-label="Toggle hidden content"',
                         'aria-label="Mostrar ou esconder o conteúdo"')],
    "copybutton.js": [("const messages = {\n",
                       "const messages = {\n  'pt-BR': {\n    'copy': 'Copiar',\n"
                       "    'copy_to_clipboard': 'Copiar para a área de transferência',\n"
                       "    'copy_success': 'Copiado!',\n    'copy_failure': 'Não foi possível copiar',\n  },\n")],
}


def scripts_em_portugues(app, exc):
    """Os dois scripts escrevem rótulos fixos em inglês (o togglebutton não tem opção para o
    aria-label; o copybutton não tem pt-BR): troca-os no _static do site."""
    if exc or app.builder.format != "html":
        return
    for nome, trocas in TROCAS_NOS_SCRIPTS.items():
        arq = Path(app.outdir) / "_static" / nome
        if not arq.exists():
            continue
        texto = arq.read_text(encoding="utf-8")
        for velho, novo in trocas:
            if novo not in texto:
                texto = texto.replace(velho, novo)
        arq.write_text(texto, encoding="utf-8")


# --- O tabindex das rolagens, que o pydata-sphinx-theme mede com um layout forçado -----------
# No DOMContentLoaded e de novo no load, o tema lê scrollWidth de cada <pre> e de cada saída de
# célula para pôr tabindex 0 (rola) ou -1: cada leitura refaz o layout da página inteira, e isso
# era a maior tarefa longa do bloco no Lighthouse (TBT 275–372 ms; nota 88–91). O livro já faz
# o mesmo em tema.js (marcarEm: só o que rola de verdade, e cada seção quando chega perto da
# tela). O corpo da conta do tema vira espaços do mesmo tamanho: o mapa de fontes segue certo.
CONTA_DO_TEMA = "e.tabIndex=e.scrollWidth>e.clientWidth||e.scrollHeight>e.clientHeight?0:-1"
SEM_CONTA = "void 0".ljust(len(CONTA_DO_TEMA))


def tabindex_so_no_livro(app, exc):
    """Tira do pydata-sphinx-theme.js a medida das rolagens (o livro a faz em tema.js)."""
    if exc or app.builder.format != "html":
        return
    arq = Path(app.outdir) / "_static" / "scripts" / "pydata-sphinx-theme.js"
    if not arq.exists():
        return
    texto = arq.read_text(encoding="utf-8")
    if texto.count(CONTA_DO_TEMA) == 1:
        arq.write_text(texto.replace(CONTA_DO_TEMA, SEM_CONTA), encoding="utf-8")
    elif "{" + SEM_CONTA + "}" not in texto:
        raise RuntimeError("tema.py: a medida das rolagens mudou no pydata-sphinx-theme.js; "
                           "atualize CONTA_DO_TEMA (tabindex_so_no_livro)")


REDIRECIONA = """<!DOCTYPE html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta http-equiv="Refresh" content="0; url={destino}">
<title>{titulo}</title>
<link rel="icon" href="_static/{icone}">
<link rel="canonical" href="{destino}">
</head>
<body><p><a href="{destino}">{titulo}</a></p></body>
</html>
"""


def pagina_da_raiz(app, exc):
    """O index.html da raiz: o redirecionamento para a 1ª página, em HTML válido e com o ícone
    do livro (o do sphinx-external-toc é só o <meta>, e o navegador pedia um /favicon.ico)."""
    if exc or app.builder.format != "html" or app.config.root_doc == "index":
        return
    import html as html_mod
    icone = Path(str(app.config.html_favicon or "")).name
    Path(app.outdir, "index.html").write_text(REDIRECIONA.format(
        destino=f"{app.config.root_doc}.html", titulo=html_mod.escape(app.config.html_title or app.config.project),
        icone=icone), encoding="utf-8")


def setup(app):
    # antes do sphinx-external-toc (prioridade 500), que só escreve o index.html se ele não existe
    app.connect("build-finished", pagina_da_raiz, priority=400)
    from . import linhas
    linhas.setup(app)
    app.add_search_language(SearchPortuguesSemAcento)
    app.connect("config-inited", opcoes_do_tema)
    # cedo: os scripts em dobro já estão no contexto quando a página começa
    app.connect("html-page-context", ajustar_pagina, priority=100)
    app.connect("build-finished", rotulos_do_layout)
    app.connect("html-page-context", meta_descricao)
    app.connect("build-finished", scripts_em_portugues)
    app.connect("build-finished", tabindex_so_no_livro)
    app.add_js_file("tema.js", loading_method="defer")
