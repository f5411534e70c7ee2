"""Texto do curso que ficou no livro: sequências de 6 ou mais palavras em comum.

Compara o texto que o leitor vê (as páginas construídas, `_build/html/book/*.html`,
sem menus nem código escondido) com os arquivos do curso (`../shared/course/*.txt`).
Sequências feitas só de números (que o livro calcula de propósito) não contam.
Fica fora do `make test`: um fork não tem `../shared`.

    python dev/copias.py                 # depois de `make book`
    python dev/copias.py --n 7 --curso ../shared/course --site _build/html
Sai com 1 se achar alguma sequência.
"""
import argparse
import html
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

RAIZ = Path(__file__).resolve().parents[1]
PALAVRA = re.compile(r"\w+")


class _Texto(HTMLParser):
    """O texto do conteúdo da página (o <article>), sem <script>, <style> nem menus."""

    PULA = {"script", "style", "nav", "header", "footer", "svg"}

    def __init__(self):
        super().__init__()
        self.partes, self.dentro, self.pula = [], 0, 0

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            self.dentro += 1
        if tag in self.PULA:
            self.pula += 1

    def handle_endtag(self, tag):
        if tag == "article":
            self.dentro -= 1
        if tag in self.PULA and self.pula:
            self.pula -= 1

    def handle_data(self, data):
        if self.dentro and not self.pula:
            self.partes.append(data)


def palavras(texto):
    return PALAVRA.findall(html.unescape(texto).lower())


def so_numeros(seq):
    """Sequência em que mais de um terço das palavras é número ou letra solta."""
    return sum(1 for w in seq if w.isdigit() or len(w) == 1) > len(seq) // 3


def sequencias(livro, curso, n):
    """Trechos de `livro` (lista de palavras) com n+ palavras seguidas que estão em `curso`."""
    ngramas = {tuple(curso[i:i + n]) for i in range(len(curso) - n + 1)}
    achados = [i for i in range(len(livro) - n + 1)
               if tuple(livro[i:i + n]) in ngramas and not so_numeros(livro[i:i + n])]
    trechos, ini, ant = [], None, None
    for i in achados:
        if ant is None or i > ant + 1:
            if ini is not None:
                trechos.append(" ".join(livro[ini:ant + n]))
            ini = i
        ant = i
    if ini is not None:
        trechos.append(" ".join(livro[ini:ant + n]))
    return trechos


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=6)
    ap.add_argument("--curso", type=Path, default=RAIZ.parent / "shared" / "course")
    ap.add_argument("--site", type=Path, default=RAIZ / "_build" / "html")
    a = ap.parse_args(argv)
    if not a.curso.is_dir():
        sys.exit(f"Sem o material do curso em {a.curso}")
    curso = []
    for f in sorted(a.curso.glob("*.txt")):
        curso += palavras(f.read_text(errors="replace"))
    total = 0
    for pagina in sorted((a.site / "book").glob("*.html")):
        p = _Texto()
        p.feed(pagina.read_text(encoding="utf-8"))
        for t in sequencias(palavras(" ".join(p.partes)), curso, a.n):
            print(f"{pagina.stem}: {t}")
            total += 1
    print(f"{total} sequências de {a.n}+ palavras em comum com o curso")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
