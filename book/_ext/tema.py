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
        # guardado por palavra: o índice pede o radical da mesma palavra milhares de vezes
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
    context["script_files"][:] = unicos
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


def setup(app):
    app.add_search_language(SearchPortuguesSemAcento)
    app.connect("config-inited", opcoes_do_tema)
    # cedo: os scripts em dobro já estão no contexto quando a página começa
    app.connect("html-page-context", ajustar_pagina, priority=100)
    app.connect("build-finished", rotulos_do_layout)
    app.add_js_file("tema.js", loading_method="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
