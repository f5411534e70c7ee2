"""A lista de referências e as citações em português (sphinxcontrib-bibtex + pybtex).

`ptbr` (a lista) é o `plain` do pybtex com as palavras em português; `ptbr_autor_ano` (as
citações) é o `author_year` com "e" entre dois autores. Duas obras com o mesmo rótulo
(autores e ano) ganham uma letra no ano, 2016a e 2016b, na ordem de `book/referencias.bib`.
"""
import codecs
import unicodedata
from collections import defaultdict
from functools import partial

PALAVRAS = {  # as palavras fixas do estilo plain do pybtex
    "In": "Em", "Technical Report": "Relatório técnico", "Master's thesis": "Dissertação de mestrado",
    "PhD thesis": "Tese de doutorado", "pages": "páginas", "volume": "volume", "of": "de",
    "chapter": "capítulo", "edition": "edição", "editor": "editor", "editors": "editores",
    " (visited on ": " (acesso em ",
}


LETRAS_SEM_ACENTO = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ı": "i", "ß": "ss", "æ": "ae", "œ": "oe"})


def chave_de_ordem(nome):
    """O nome como a lista o ordena (pela letra, como a ABNT): sem os comandos do LaTeX ({\\'E} vira E),
    sem as chaves dos autores coletivos ({Gemma Team}), sem acento e em minúscula; sem isso, a "{",
    o "\\" e as letras acentuadas caíam fora do alfabeto, antes do "a" ou depois do "z"."""
    import latexcodec  # noqa: F401  (registra o codec "ulatex"; vem com o pybtex)

    try:
        nome = codecs.decode(nome, "ulatex")
    except ValueError:                       # um LaTeX que o latexcodec não lê fica como está
        pass
    nome = unicodedata.normalize("NFKD", nome.replace("{", "").replace("}", ""))
    return "".join(c for c in nome if not unicodedata.combining(c)).lower().translate(LETRAS_SEM_ACENTO)


def rotulo(entry):
    """O rótulo autor-ano de uma entrada, como a citação o mostra: (sobrenomes, ano)."""
    pessoas = entry.persons.get("author") or entry.persons.get("editor") or []
    nomes = [" ".join(p.last_names) or str(p) for p in pessoas]
    if len(nomes) > 2 or "others" in nomes:
        nomes = [nomes[0], "et al."]
    return (tuple(nomes), entry.fields.get("year", ""))


def calcula_sufixos(entradas):
    """{chave: letra} para as entradas que dividem um rótulo; `entradas` na ordem do arquivo."""
    grupos = defaultdict(list)
    for chave, entry in entradas:
        grupos[rotulo(entry)].append(chave)
    return {c: "abcdefghijklmnopqrstuvwxyz"[i] for chaves in grupos.values() if len(chaves) > 1 for i, c in enumerate(chaves)}


def desempata(entradas):
    """Põe a letra de desempate no ano das entradas (um dict chave -> Entry, na ordem do arquivo)."""
    sufixos = calcula_sufixos(entradas.items())
    for chave, letra in sufixos.items():
        entradas[chave].fields["year"] += letra
    return sufixos


def _traduz(no):
    """Troca, numa árvore de template do pybtex, as palavras fixas em inglês."""
    from pybtex.style.template import Node

    if isinstance(no, str):
        return PALAVRAS.get(no, no)
    if isinstance(no, Node):
        novo = Node(no.name, no.f)
        novo.args = no.args
        novo.kwargs = {k: _traduz(v) for k, v in no.kwargs.items()}
        novo.children = [_traduz(c) for c in no.children]
        return novo
    return no


def _estilos():
    from pybtex.richtext import Text
    from pybtex.style.formatting.plain import Style as Plain
    from pybtex.style.sorting.author_year_title import SortingStyle
    from pybtex.style.template import FieldIsMissing, href, join, node, field as campo, sentence

    class Ordem(SortingStyle):
        """Os autores coletivos ({Gemma Team}) e os nomes com acento no alfabeto (`chave_de_ordem`)."""

        def person_key(self, person):
            return chave_de_ordem(super().person_key(person))

    @node
    def nomes(children, context, role, **kwargs):
        """Os nomes de uma entrada, com "outros" no lugar de "others"."""
        estilo = context["style"]
        try:
            pessoas = context["entry"].persons[role]
        except KeyError:
            raise FieldIsMissing(role, context["entry"])
        ditos = [Text("outros") if str(p) == "others" else estilo.format_name(p, estilo.abbreviate_names)
                 for p in pessoas]
        return join(**kwargs)[ditos].format_data(context)

    class Estilo(Plain):
        """O plain do pybtex em português, com o endereço sem o rótulo "URL:"."""

        default_sorting_style = Ordem

        def format_names(self, role, as_sentence=True):
            feito = nomes(role, sep=", ", sep2=" e ", last_sep=" e ")
            return sentence[feito] if as_sentence else feito

        def format_url(self, e):
            url = campo("url", raw=True)
            return href(url)[url]

        def __getattribute__(self, nome):
            attr = super().__getattribute__(nome)
            if nome.startswith("get_") and nome.endswith("_template"):
                return lambda e: _traduz(attr(e))
            return attr

    return Estilo


def setup(app):
    import pybtex.plugin
    from pybtex.backends.plaintext import Backend
    from sphinxcontrib.bibtex.plugin import register_plugin
    from sphinxcontrib.bibtex.style.referencing import PersonStyle
    from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle

    pybtex.plugin.register_plugin("pybtex.style.formatting", "ptbr", _estilos())
    # o sphinxcontrib-bibtex pede o backend "plaintext" a cada citação, e o pybtex o procuraria
    # nos entry points de todos os pacotes, toda vez (~1 s de CPU num build)
    pybtex.plugin.register_plugin("pybtex.backends", "plaintext", Backend, force=True)
    autor_ano = partial(AuthorYearReferenceStyle, person=PersonStyle(sep2=" e ", last_sep=" e "))
    register_plugin("sphinxcontrib.bibtex.style.referencing", "ptbr_autor_ano", autor_ano)
    # depois do sphinxcontrib-bibtex ler os .bib: as letras de desempate no ano, na lista e no texto
    app.connect("builder-inited", lambda app: desempata(app.env.get_domain("cite").bibdata.data.entries), priority=600)
