"""MyST -> Markdown comum, para os notebooks (ver notebooks.py): o glue resolvido, avisos como
citações, `dropdown` como <details>, links entre páginas apontando o site."""
from __future__ import annotations

import base64
import posixpath
import re
from urllib.parse import urljoin

import jinja2
from myst_nb.core.render import strip_latex_delimiters
from myst_nb.core.variables import format_plain_text
from myst_nb.ext.glue.crossref import read_glue_cache

from ..execucao import myst

TITULOS = {"note": "Nota", "tip": "Dica", "hint": "Dica", "important": "Importante", "warning": "Atenção",
           "attention": "Atenção", "caution": "Cuidado", "danger": "Perigo", "error": "Erro", "seealso": "Veja também"}
CODIGO = {"code-block", "code", "sourcecode"}  # o corpo fica como bloco de código
# somem do notebook (não têm sentido fora do site)
SOMEM = {"toctree", "tableofcontents", "include", "literalinclude", "only", "index", "eval-rst", "bibliography"}
# o título em negrito e o conteúdo; tab-set, grid, container... ficam só com o conteúdo
COM_TITULO = {"tab-item", "card", "grid-item-card", "exercise", "solution", "topic", "sidebar"}
GLUE = {"glue", "glue:", "glue:any", "glue:text", "glue:md", "glue:math", "glue:figure"}
PAPEIS = {"math": "${}$", "sub": "<sub>{}</sub>", "subscript": "<sub>{}</sub>", "sup": "<sup>{}</sup>",
          "superscript": "<sup>{}</sup>", "kbd": "<kbd>{}</kbd>"}
# {nome}`conteúdo` ou `código`: as crases de fora são uma sequência inteira, e as que fecham, outra igual
PAPEL = re.compile(r"(?:\{(?P<nome>[\w:.+-]*)\})?(?<!`)(?P<t>`+)(?!`)(?P<c>.*?)(?<!`)(?P=t)(?!`)", re.S)
FORA = re.compile(r"^\s*\([\w:.\-]+\)=\s*$|^\s*\+\+\+\s*$|^%")  # (alvo)=, quebra de bloco, comentário
SEM_EXTENSAO = re.compile(r"\.(md|ipynb)$")


def _t(v):
    return "".join(v) if isinstance(v, list) else str(v)


def latex_nu(s: str) -> str:
    """O LaTeX sem os delimitadores e sem o \\displaystyle."""
    return strip_latex_delimiters(s).strip().removeprefix(r"\displaystyle").strip()


def texto_alternativo(alt: str) -> str:
    """O texto alternativo de uma imagem no Markdown, sem `[`, `]` e `\\` (fechariam o link)."""
    return re.sub(r"[\[\]\\]", "", alt)


def imagem(data: dict, alt: str = "") -> str | None:
    """A figura como imagem `data:` no Markdown, que o Colab mostra (anexos da célula, não).
    O PNG primeiro: o Colab não mostra SVG embutido."""
    for mime in ("image/png", "image/jpeg", "image/svg+xml"):
        if mime in data:
            conteudo = _t(data[mime])
            if mime == "image/svg+xml":
                conteudo = base64.b64encode(conteudo.encode()).decode()
            b64 = re.sub(r"\s", "", conteudo)
            return f"![{texto_alternativo(alt)}](data:{mime};base64,{b64})"
    return None


class Conversor:
    """O Markdown de uma página (`doc`), com o glue de `pasta_exec`; `avisos`: o que não se resolveu."""

    def __init__(self, pasta_exec, doc: str, url_pagina, url_site: str = "", substituicoes=None):
        self.pasta = str(pasta_exec)
        self.doc = doc
        self.url_pagina = url_pagina  # docname -> URL absoluta da página no site
        self.url_site = url_site.rstrip("/") + "/" if url_site else ""
        self.subs = dict(substituicoes or {})
        self.avisos = []

    def caminho(self, rel: str) -> str:
        """Um caminho relativo à página -> o caminho na raiz do livro."""
        return posixpath.normpath(posixpath.join(posixpath.dirname(self.doc), rel)).lstrip("/")

    def pega(self, ref: str) -> dict | None:
        """'chave' ou 'pagina.md::chave' -> o `data` do glue (None, com um aviso, se não há)."""
        rel, _, chave = ref.rpartition("::")
        doc = SEM_EXTENSAO.sub("", self.caminho(rel)) if rel else self.doc
        dados = read_glue_cache(self.pasta, doc)
        if chave not in dados:
            self.avisos.append(f"glue {chave!r} não existe em {doc}")
            return None
        return dados[chave].get("data", {})

    # -- papéis (inline) ----------------------------------------------------
    def substitui(self, s: str) -> str:
        """As substituições do MyST, `{{ chave }}` ou uma expressão Jinja, como no site."""
        if "{{" not in s:
            return s
        try:
            return jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(s).render(**self.subs)
        except jinja2.TemplateError as e:
            self.avisos.append(f"substituição que não se resolve ({e}): {s.strip()[:80]}")
            return s

    def inline(self, s: str) -> str:
        """Resolve os papéis {nome}`conteúdo` de uma linha; código `assim` fica intocado."""
        def troca(m):
            if m.group("nome") is None:
                return m.group()
            conteudo = m.group("c").strip() if len(m.group("t")) > 1 else m.group("c")
            return self.papel(m.group("nome"), conteudo)

        return self.links(PAPEL.sub(troca, self.substitui(s)))

    def papel(self, nome: str, conteudo: str) -> str:
        if nome in GLUE:
            return self.cola_inline(nome, conteudo)
        if nome in PAPEIS:
            return PAPEIS[nome].format(conteudo)
        m = re.match(r"^(.*?)\s*<([^<>]+)>$", conteudo, re.S)
        texto, alvo = (m.group(1), m.group(2)) if m and m.group(1) else (conteudo, conteudo)
        if nome == "doc":
            doc = SEM_EXTENSAO.sub("", self.caminho(alvo))
            rotulo = texto if m and m.group(1) else doc.split("/")[-1]
            return f"[{rotulo}]({self.url_pagina(doc)})"
        if nome == "eq":
            return f"({texto})"
        if nome == "abbr":
            return re.sub(r"\s*\(.*\)$", "", texto)
        return texto  # term, ref, numref, download, cite...: o texto basta

    def cola_inline(self, nome, conteudo):
        chave, fmt = conteudo, ""
        if nome == "glue:text":  # como o myst-nb: o que vem depois do último ':' é o formato
            chave, fmt = conteudo.rsplit(":", 1) if ":" in conteudo else (conteudo, "s")
        data = self.pega(chave)
        if data is None:
            return f"**[{chave}?]**"
        if nome == "glue:text":
            return format_plain_text(_t(data.get("text/plain", "")), fmt)
        return self.valor_any(data, inline=True)

    def valor_any(self, data, inline):
        if "text/latex" in data:
            tex = latex_nu(_t(data["text/latex"]))
            return f"${tex}$" if inline else f"$$\n{tex}\n$$"
        img = imagem(data)
        if img:
            return img
        for mime in ("text/markdown", "text/html"):  # uma tabela, o navegador dos passos: ligam às páginas
            if mime in data:
                return self.links(_t(data[mime]))
        return format_plain_text(_t(data.get("text/plain", "")), "")

    def endereco(self, alvo: str) -> str:
        """Um endereço relativo (outra.md#x, #x, bloco.html, ../livro.pdf) -> o endereço no site:
        o notebook baixado não tem as páginas nem os arquivos ao lado dele."""
        if re.match(r"^[a-z][\w+.-]*:", alvo) or alvo.startswith("//"):
            return alvo
        caminho, _, ancora = alvo.partition("#")
        ancora = "#" + ancora if ancora else ""
        if not caminho:
            return self.url_pagina(self.doc) + ancora
        if SEM_EXTENSAO.search(caminho):
            return self.url_pagina(SEM_EXTENSAO.sub("", self.caminho(caminho))) + ancora
        return urljoin(self.url_pagina(self.doc), caminho) + ancora

    def links(self, s: str) -> str:
        """[texto](outra.md#ancora) e <a href="bloco.html"> -> o endereço no site."""
        s = re.sub(r"(?<!!)\[([^\]]*)\]\(([^)\s]+)\)", lambda m: f"[{m.group(1)}]({self.endereco(m.group(2))})", s)
        return re.sub(r"""(<a\b[^>]*?\bhref=)(["'])([^"']*)\2""",
                      lambda m: f"{m.group(1)}{m.group(2)}{self.endereco(m.group(3))}{m.group(2)}", s)

    # -- blocos --------------------------------------------------------------
    def markdown(self, texto: str) -> str:
        s = "\n".join(self.blocos(texto.split("\n")))
        return re.sub(r"\n{3,}", "\n\n", s).strip("\n")

    def blocos(self, linhas: list[str]) -> list[str]:
        out = []
        pulo = -1  # a última linha de um bloco de matemática $$ … $$ já copiado
        for p in myst.pedacos(linhas):
            if isinstance(p, myst.Bloco):
                out += self.diretiva(p)
                continue
            i, ln = p
            if i <= pulo or FORA.match(ln):
                continue
            if not ln.strip().startswith("$$"):
                out.append(self.inline(ln))
                continue
            # matemática em bloco: fica, sem o rótulo ("$$ (rotulo)")
            pulo = i
            if ln.strip() == "$$" or not ln.strip().endswith("$$"):
                pulo = next((j for j in range(i + 1, len(linhas)) if "$$" in linhas[j]), len(linhas))
            bloco = linhas[i:pulo + 1]
            bloco[0] = re.sub(r"^(\s*\$\$)\s*\([^)]*\)\s*$", r"\1", bloco[0])
            bloco[-1] = re.sub(r"\$\$\s*\([^)]*\)\s*$", "$$", bloco[-1])
            out += bloco
        return out

    def diretiva(self, p: myst.Bloco) -> list[str]:
        nome, arg = p.nome, p.arg
        if nome is None:  # cerca comum: bloco de código, fica igual
            return [f"```{p.info}", *p.corpo, "```"]
        op, conteudo, _ = myst.opcoes(p.corpo)
        legenda = " ".join(x.strip() for x in conteudo if x.strip())
        if nome in CODIGO:
            return [f"```{arg}", *conteudo, "```"]
        if nome in SOMEM:
            return []
        if nome in GLUE:  # uma figura com a legenda; o resto, como valor_any
            data = self.pega(arg)
            if data is None:
                return [f"**[{arg}?]**"]
            e_figura = nome == "glue:figure"
            legenda = self.inline(legenda) if e_figura else ""
            img = imagem(data, op.get("alt", "")) if e_figura else None
            return ["", img or self.valor_any(data, inline=False), "", *([f"*{legenda}*", ""] if legenda else [])]
        if nome == "math":
            return ["", "$$", *conteudo, "$$", ""]
        if nome == "widget":
            return ["", f"> **Widget interativo** (`{arg}`): ele roda no navegador, na "
                        f"[página do livro]({self.url_pagina(self.doc)}).", ""]
        if nome == "raw":
            return ["", *map(self.links, conteudo), ""] if "html" in arg else []
        if nome in ("figure", "image"):
            alvo = arg if re.match(r"^[a-z]+://", arg) else self.url_site + self.caminho(arg)
            figura = f"![{op.get('alt', legenda)}]({alvo})"
            return ["", figura, *(["", f"*{self.inline(legenda)}*"] if legenda else []), ""]
        dentro = self.blocos(conteudo)
        if nome == "dropdown" or any("dropdown" in op.get(k, "") for k in ("class", "class_")):
            titulo = self.inline(arg) if arg else "Mostrar"
            return ["", f"<details><summary>{titulo}</summary>", "", *dentro, "", "</details>", ""]
        if nome in TITULOS or nome == "admonition":
            titulo = TITULOS.get(nome, "Nota")
            if arg and nome == "admonition":
                titulo = self.inline(arg)
            elif arg:
                dentro = [self.inline(arg), ""] + dentro
            return ["", f"> **{titulo}**", ">", *[("> " + x) if x else ">" for x in dentro], ""]
        cabeca = [f"**{self.inline(arg)}**", ""] if arg and nome in COM_TITULO else []
        return ["", *cabeca, *dentro, ""]
