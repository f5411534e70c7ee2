"""O tema do livro: tudo em português, console limpo, busca sem acento, e o fim do build do site.

Os textos do pydata-sphinx-theme que faltam em pt_BR estão em `book/_locale` (sphinx.po); os do
sphinx-book-theme sem catálogo, em `book/_templates`; o resto é trocado aqui, no fim do build.
"""
from __future__ import annotations

import html as html_mod
import json
import re
import unicodedata
from pathlib import Path

from sphinx.search.pt import SearchPortuguese
from sphinx.util import logging

TEMA = {  # as opções que o _config.yml do Jupyter Book não deixa pôr sem reescrever o dicionário
    "search_bar_text": "Buscar no livro…",
    "toc_title": "Nesta página",
    # o pydata 0.17 põe uma busca num cabeçalho acima do livro; a do menu lateral basta
    "navbar_persistent": [],
    # "Nesta página" com os títulos de 3º nível sempre à vista (o padrão, 1, só os mostra quando a
    # seção de cima está na tela): toda entrada se clica, a 1280 px e na gaveta do celular
    "show_toc_level": 2,
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
        # (com o PyStemmer, o Snowball em C dá os mesmos radicais, ~20 vezes mais rápido)
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


# Scripts que esperam o DOM: saem com defer, na mesma ordem (o documentation_options.js fica:
# os <script> embutidos da página o usam).
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
    """Cada <script> uma vez só (o sphinx-thebe e o togglebutton o registram duas), os adiáveis com defer."""
    vistos, unicos = set(), []
    for js in context.get("script_files", []):
        # um script embutido (o corpo é o atributo "body") aparece com filename None e com ""
        chave = (str(getattr(js, "filename", js) or ""), tuple(sorted((getattr(js, "attributes", None) or {}).items())))
        if chave in vistos:
            continue
        vistos.add(chave)
        unicos.append(js)
    # na página da busca, o searchtools.js usa o doctools.js logo ao carregar: lá, nada muda
    context["script_files"][:] = unicos if pagename == "search" else [_adiado(js) for js in unicos]
    # role="doc-biblioentry" (do docutils) foi aposentado pelo ARIA 1.2: o axe acusa lista sem itens
    if "body" in context and 'role="doc-biblioentry"' in context["body"]:
        context["body"] = context["body"].replace('role="doc-biblioentry"', 'role="listitem"')


DO_LIVRO = "Transformers: do texto ao próximo token"
DESCRICOES_FIXAS = {  # páginas sem texto próprio (geradas pelo Sphinx)
    "genindex": f"Índice remissivo do livro {DO_LIVRO}.",
    "search": f"Busca no livro {DO_LIVRO}, com ou sem acentos.",
}
TAMANHO_DESCRICAO = 200
_TEX_PARA_TEXTO = {r"\times": "×", r"\sqrt": "√", r"\top": "ᵀ", r"\cdot": "·", r"\to": "→",
                   r"\approx": "≈", r"\le": "≤", r"\ge": "≥", r"\infty": "∞", r"\sigma": "σ",
                   r"\mu": "μ", r"\epsilon": "ε", r"\gamma": "γ", r"\beta": "β"}


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


def _texto_simples(no):
    """O texto de um nó, com as fórmulas em texto simples ($d = 4$ -> d = 4; \\times -> ×)."""
    from docutils import nodes

    if isinstance(no, nodes.math):
        t = re.sub(r"\\[a-zA-Z]+", lambda m: _TEX_PARA_TEXTO.get(m.group(), ""), no.astext())
        return re.sub(r"[{}]", "", t).replace("\\", "")
    if isinstance(no, nodes.Text):
        return str(no)
    return "".join(_texto_simples(filho) for filho in no.children)


def descricao_da_pagina(doctree, titulo):
    """O título e o 1º parágrafo de texto corrido (fórmulas em texto), cortado numa palavra perto do TAMANHO."""
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
    metatags = context.get("metatags", "") or ""
    if 'name="description"' in metatags:
        return
    titulo = html_mod.unescape(str(context.get("title", "")))
    titulo = " ".join(re.sub(r"<[^>]+>", "", titulo).split())
    if pagename in DESCRICOES_FIXAS or doctree is None:
        desc = DESCRICOES_FIXAS.get(pagename, f"{titulo}: uma página do livro {DO_LIVRO}.")
    else:
        desc = descricao_da_pagina(doctree, titulo)
    context["metatags"] = metatags + f'\n<meta name="description" content="{html_mod.escape(desc, quote=True)}" />'


# A busca põe primeiro a página que é sobre a palavra (o placar está em `_static/tema.js`).
_CAIXA = re.compile(r'<div class="[^"]*\bpasso\b[^"]*">(.*?)</div>', re.S)
_MATH = re.compile(r'<span class="math[^"]*">.*?</span>', re.S)
_ENTREGA = re.compile(r"<li>(?:(?!</li>).)*?Entrega:(.*?)</li>", re.S)
_TAGS = re.compile(r"<[^>]+>")


def destaque(html: str) -> str:
    """A 1ª frase (o resto diz para onde vai) da linha "Entrega" da caixa do passo, sem acento, ou ""."""
    caixa = _CAIXA.search(html)
    m = _ENTREGA.search(caixa.group(1)) if caixa else None
    if not m:
        return ""
    texto = html_mod.unescape(_TAGS.sub(" ", _MATH.sub(" ", m.group(1))))
    texto = re.split(r"(?<=\.)\s", texto.strip(), maxsplit=1)[0]
    return " ".join(sem_acento(texto.lower()).split())


def destaques_na_busca(saida: Path, paginas: dict) -> dict:
    """Põe no searchindex.js o `livro_destaques` (página -> destaque) das `paginas` (caminho -> HTML)."""
    indice = saida / "searchindex.js"
    if not indice.exists():
        return {}
    texto = indice.read_text(encoding="utf-8")
    pre, suf = "Search.setIndex(", ")"
    if not (texto.startswith(pre) and texto.rstrip().endswith(suf)):
        raise RuntimeError("tema.py: searchindex.js não tem a forma Search.setIndex({...})")
    dados = json.loads(texto[len(pre):texto.rstrip().rindex(suf)])
    destaques = {}
    for nome in dados.get("docnames", []):
        d = destaque(paginas.get(f"{nome}.html", ""))
        if d:
            destaques[nome] = d
    dados["livro_destaques"] = destaques
    indice.write_text(pre + json.dumps(dados, ensure_ascii=False, separators=(",", ":")) + suf, encoding="utf-8")
    return destaques


# Os scripts de _static com textos em inglês; e o tabindex das rolagens, que o pydata-sphinx-theme
# mede com um layout forçado da página inteira (dev/MEDIDAS.md) e o tema.js do livro já põe: a conta
# vira espaços do mesmo tamanho (o mapa de fontes segue certo).
CONTA_DO_TEMA = "e.tabIndex=e.scrollWidth>e.clientWidth||e.scrollHeight>e.clientHeight?0:-1"
SEM_CONTA = "void 0".ljust(len(CONTA_DO_TEMA))
TROCAS_NOS_SCRIPTS = {
    "togglebutton.js": [('aria-label="Toggle hidden content"',
                         'aria-label="Mostrar ou esconder o conteúdo"')],
    "copybutton.js": [("const messages = {\n",
                       "const messages = {\n  'pt-BR': {\n    'copy': 'Copiar',\n"
                       "    'copy_to_clipboard': 'Copiar para a área de transferência',\n"
                       "    'copy_success': 'Copiado!',\n    'copy_failure': 'Não foi possível copiar',\n  },\n")],
    "scripts/pydata-sphinx-theme.js": [(CONTA_DO_TEMA, SEM_CONTA)],
}


def trocas_nos_scripts(static: Path):
    """Cada troca uma vez (o build incremental acha o script já trocado); a que não acha o que trocar derruba."""
    for nome, trocas in TROCAS_NOS_SCRIPTS.items():
        arq = static / nome
        if not arq.exists():
            continue
        texto = arq.read_text(encoding="utf-8")
        for velho, novo in trocas:
            if novo not in texto:
                texto = texto.replace(velho, novo)
            if novo not in texto:
                raise RuntimeError(f"tema.py: {nome} mudou; atualize TROCAS_NOS_SCRIPTS")
        arq.write_text(texto, encoding="utf-8")


def no_fim(app, exc):
    """build-finished: um passe pelas páginas; depois os scripts, a busca, os ícones, as fórmulas e as figuras."""
    if exc or app.builder.format != "html":
        return
    from . import figuras, icones, matematica

    saida = Path(app.outdir)
    paginas = {}
    for arq in saida.rglob("*.html"):
        rel = arq.relative_to(saida).as_posix()
        texto = arq.read_text(encoding="utf-8")
        # o layout.html do sphinx-book-theme tem o rótulo fixo em inglês
        novo = icones.sem_script(texto.replace('<nav aria-label="Page">', '<nav aria-label="Nesta página">'))
        if not rel.startswith("_"):
            novo = matematica.sem_scripts_mathjax(novo)
        if novo != texto:
            arq.write_text(novo, encoding="utf-8")
        paginas[rel] = novo
    trocas_nos_scripts(saida / "_static")
    destaques_na_busca(saida, paginas)
    icones.aplicar(saida, paginas.values())
    try:
        matematica.desenhar(saida, paginas)
    except matematica.FaltaFerramenta as e:
        # uma cópia do livro sem node_modules ainda sai; no `make book` o aviso vira erro (-W)
        logging.getLogger(__name__).warning(f"fórmulas não desenhadas no build: {e}")
    if app.builder.name == "html":
        figuras.aplicar(saida)


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
    """O index.html da raiz redireciona em HTML válido, com o ícone (sem ele o navegador pede o /favicon.ico)."""
    if exc or app.builder.format != "html" or app.config.root_doc == "index":
        return
    icone = Path(str(app.config.html_favicon or "")).name
    Path(app.outdir, "index.html").write_text(REDIRECIONA.format(
        destino=f"{app.config.root_doc}.html", titulo=html_mod.escape(app.config.html_title or app.config.project),
        icone=icone), encoding="utf-8")


def setup(app):
    # antes do sphinx-external-toc (prioridade 500), que só escreve o index.html se ele não existe
    app.connect("build-finished", pagina_da_raiz, priority=400)
    app.add_search_language(SearchPortuguesSemAcento)
    app.connect("config-inited", opcoes_do_tema)
    # cedo: os scripts em dobro já estão no contexto quando a página começa
    app.connect("html-page-context", ajustar_pagina, priority=100)
    app.connect("html-page-context", meta_descricao)
    app.connect("build-finished", no_fim)
    app.add_js_file("tema.js", loading_method="defer")
