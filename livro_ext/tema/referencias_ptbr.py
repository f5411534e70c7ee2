"""A lista de referências e as citações em português (sphinxcontrib-bibtex + pybtex).

Dois estilos, registrados em setup():
- `ptbr` (a lista, `bibtex_default_style`): o `plain` do pybtex com as palavras em português:
  "e" entre os dois últimos autores, "e outros" no lugar de "and others", "Em" antes do
  livro de anais, "Relatório técnico", e o endereço sem o rótulo "URL:".
- `ptbr_autor_ano` (as citações, `bibtex_reference_style`): o `author_year` com "e" entre
  dois autores.

Nos dois, duas obras com o mesmo rótulo (mesmos autores no rótulo e mesmo ano, como os dois
artigos de He et al. de 2016) ganham uma letra depois do ano: 2016a, 2016b, na ordem em que
aparecem em `book/referencias.bib`. As letras saem de `sufixos()`, calculadas uma vez do
arquivo, e valem igual na lista e no texto.
"""
import os
from collections import defaultdict
from dataclasses import dataclass, field

PALAVRAS = {  # as palavras fixas do estilo plain do pybtex
    "In": "Em",
    "Technical Report": "Relatório técnico",
    "Master's thesis": "Dissertação de mestrado",
    "PhD thesis": "Tese de doutorado",
    "pages": "páginas",
    "volume": "volume",
    "of": "de",
    "chapter": "capítulo",
    "edition": "edição",
    "editor": "editor",
    "editors": "editores",
    " (visited on ": " (acesso em ",
}
OUTROS = "outros"
_SUFIXOS = {}


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
    letras = "abcdefghijklmnopqrstuvwxyz"
    return {c: letras[i] for chaves in grupos.values() if len(chaves) > 1 for i, c in enumerate(chaves)}


def sufixos():
    return _SUFIXOS


def _ano(entry):
    return entry.fields.get("year", "s.d.") + _SUFIXOS.get(entry.key, "")


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


def _ordem():
    from pybtex.style.sorting.author_year_title import SortingStyle

    class Ordem(SortingStyle):
        """A ordem do alfabeto também para os autores coletivos, que o .bib escreve entre
        chaves ({Gemma Team}, {DeepSeek-AI}): sem tirar as chaves, a "{" vinha depois do "z"."""

        def person_key(self, person):
            return super().person_key(person).replace("{", "").replace("}", "")

    return Ordem


def _estilos():
    Ordem = _ordem()
    from pybtex.database import Entry
    from pybtex.richtext import Text
    from pybtex.style.formatting.plain import Style as Plain
    from pybtex.style.template import FieldIsMissing, href, join, node, field as campo, sentence

    @node
    def nomes(children, context, role, **kwargs):
        """Os nomes de uma entrada, com "outros" no lugar de "others"."""
        estilo = context["style"]
        try:
            pessoas = context["entry"].persons[role]
        except KeyError:
            raise FieldIsMissing(role, context["entry"])
        ditos = [Text(OUTROS) if str(p) == "others" else estilo.format_name(p, estilo.abbreviate_names)
                 for p in pessoas]
        return join(**kwargs)[ditos].format_data(context)

    class Estilo(Plain):
        """O plain do pybtex em português (ver o docstring do módulo)."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.sorting_style = Ordem()
            self.sort = self.sorting_style.sort

        def format_names(self, role, as_sentence=True):
            feito = nomes(role, sep=", ", sep2=" e ", last_sep=" e ")
            return sentence[feito] if as_sentence else feito

        def format_url(self, e):
            url = campo("url", raw=True)
            return href(url)[url]

        def format_entry(self, label, entry, bib_data=None):
            if entry.key in _SUFIXOS:
                copia = Entry(entry.type, fields=dict(entry.fields), persons=entry.persons)
                copia.key = entry.key
                copia.fields["year"] = _ano(entry)
                entry = copia
            return super().format_entry(label, entry, bib_data)

        def __getattribute__(self, nome):
            attr = super().__getattribute__(nome)
            if nome.startswith("get_") and nome.endswith("_template"):
                return lambda e: _traduz(attr(e))
            return attr

    return Estilo


def _estilo_citacao():
    from pybtex.richtext import Text
    from pybtex.style.template import node
    from sphinxcontrib.bibtex.style.referencing import PersonStyle
    from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle
    from sphinxcontrib.bibtex.style.referencing.basic_author_year import (
        BasicAuthorYearParentheticalReferenceStyle as Par,
        BasicAuthorYearTextualReferenceStyle as Tex,
    )
    from sphinxcontrib.bibtex.style.template import join, join2, post_text, pre_text, reference

    @node
    def ano(children, data):
        return Text(_ano(data["entry"]))

    class Parentetica(Par):
        def inner(self, role_name):
            return join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[
                pre_text,
                reference[join(sep=self.author_year_sep)[
                    self.person.author_or_editor_or_title(full="s" in role_name), ano]],
                post_text,
            ]

    class Textual(Tex):
        def inner(self, role_name):
            return join(sep=self.text_reference_sep)[
                self.person.author_or_editor_or_title(full="s" in role_name),
                join[self.bracket.left,
                     join2(sep1=self.pre_text_sep, sep2=self.post_text_sep)[pre_text, reference[ano], post_text],
                     self.bracket.right],
            ]

    @dataclass
    class AutorAno(AuthorYearReferenceStyle):
        """O author_year com "e" entre dois autores e as letras de desempate no ano."""

        person: PersonStyle = field(default_factory=lambda: PersonStyle(sep2=" e ", last_sep=" e "))

        def __post_init__(self):
            super().__post_init__()
            troca = {Par: Parentetica, Tex: Textual}
            for i, s in enumerate(self.styles):
                if type(s) in troca:
                    novo = troca[type(s)].__new__(troca[type(s)])
                    novo.__dict__.update(s.__dict__)
                    self.styles[i] = novo
            self.role_style = {r: st for st in self.styles for r in st.role_names()}

    return AutorAno


def _le_bib(app, config):
    """config-inited: as letras de desempate, lidas dos arquivos .bib do livro."""
    from pybtex.database import parse_file

    entradas = []
    for nome in config.bibtex_bibfiles:
        caminho = os.path.join(app.srcdir, nome)
        entradas += list(parse_file(caminho, bib_format="bibtex").entries.items())
    _SUFIXOS.clear()
    _SUFIXOS.update(calcula_sufixos(entradas))


def setup(app):
    import pybtex.plugin
    from sphinxcontrib.bibtex.plugin import register_plugin

    pybtex.plugin.register_plugin("pybtex.style.formatting", "ptbr", _estilos())
    # O sphinxcontrib-bibtex pede o backend "plaintext" a cada citação, e o pybtex o procura
    # nos entry points de todos os pacotes instalados, toda vez (~1 s de CPU num build).
    # Registrado aqui, o mesmo backend sai na hora.
    from pybtex.backends.plaintext import Backend

    pybtex.plugin.register_plugin("pybtex.backends", "plaintext", Backend, force=True)
    register_plugin("sphinxcontrib.bibtex.style.referencing", "ptbr_autor_ano", _estilo_citacao())
    app.connect("config-inited", _le_bib)
