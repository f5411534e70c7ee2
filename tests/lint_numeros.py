"""Nenhum número digitado: aponta (arquivo:linha) todo número com separador decimal ou de milhar
(`0,395`, `50.257`, `0{,}395`, `,5`) fora de código, no texto-fonte das páginas e nas células
`# %% [markdown]` de `lab/laboratorio_gpt2.py` (a regra: CONTRIBUINDO.md, "A regra dos números").

Fica de fora o que não é número lido como do livro: o cabeçalho YAML, células e blocos de código,
`{raw}`, comentários e blocos HTML, código inline, papéis que não são texto (`{glue:text}`, `{ref}`...;
o conteúdo de `{math}` conta), argumentos de diretivas que apontam algo, opções, endereços e rótulos,
índices em subscrito ($y_{3,1}$). Uma exceção só pela lista PERMITIDOS, com o motivo.

    python tests/lint_numeros.py            # verifica book/*.md e o laboratório
    python tests/lint_numeros.py a.md b.md  # verifica esses arquivos (.md ou .py percent)

Um auxiliar dos testes (tests/test_numeros_digitados.py), fora do build, como tests/pdf_confere.py.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from livro_ext.execucao import myst  # o leitor de MyST do build

RAIZ = Path(__file__).resolve().parents[1]

# Trechos exatos que podem ter separador, cada um com o motivo. Mantenha a lista curta.
PERMITIDOS: dict[str, str] = {
}

# Um número com separador: 0,395 0.395 50.257 1,5 7.087.872 0{,}395 50{.}257
NUMERO = re.compile(r"(?<![\w.,])\d+(?:(?:[.,]|\{[.,]\})\d+)+(?!\w)")
# ... e sem o zero na frente, depois de espaço, parêntese, sinal ou $: ,5  .5  -.5
SEM_ZERO = re.compile(r"(?:(?<=[\s(\[=+\-−$])|^)(?:[.,]|\{[.,]\})\d+(?![\w.,])")

CODIGO_DIRETIVAS = set("code-cell code-block code sourcecode literalinclude raw eval-rst toctree include widget "
                       "razao mermaid raw-cell jupyter-execute glue glue: glue:any glue:md glue:math csv-table".split())
# diretivas cujo argumento é texto para o leitor (título)
ARG_PROSA = set("admonition dropdown card tab-item grid-item-card topic sidebar exercise solution note tip hint "
                "important warning attention caution danger error seealso math rubric".split())
# papéis cujo conteúdo é texto/matemática que o leitor lê
PAPEIS_PROSA = {"math", "sub", "sup", "subscript", "superscript", "abbr", "kbd", "term"}


def _limpa_linha(ln: str) -> str:
    """Tira de uma linha de prosa tudo o que não é texto lido como número."""
    def papel(m):     # {nome}`conteúdo`: o conteúdo fica só nos papéis de prosa
        return " " + m.group(3) + " " if m.group(1) in PAPEIS_PROSA else " "
    ln = re.sub(r"\{([\w:.+-]*)\}(`+)(.*?)\2", papel, ln)
    ln = re.sub(r"(`+).*?\1", " ", ln)                        # código inline
    ln = re.sub(r"<!--.*?-->", " ", ln)                       # comentário HTML
    ln = re.sub(r"\]\([^)]*\)", "] ", ln)                     # alvo de link [t](alvo)
    ln = re.sub(r"<(https?|mailto):[^>]*>", " ", ln)          # <http://…>
    ln = re.sub(r"\bhttps?://\S+", " ", ln)                   # URL solta
    ln = re.sub(r"</?[a-zA-Z][^>]*>", " ", ln)                # tags HTML (fica o texto)
    ln = re.sub(r"^\s*\([\w:.\-]+\)=\s*$", " ", ln)           # (rotulo)=
    ln = re.sub(r"\$\$\s*\([\w:.\-]+\)\s*$", "$$", ln)        # $$ (rotulo)
    ln = re.sub(r"^\s*\[[^\]]+\]:\s*\S+.*$", " ", ln)         # [ref]: url
    ln = re.sub(r"\{\{[^}]*\}\}", " ", ln)                    # substituições {{ x }}
    ln = re.sub(r"_\{\s*\w+(?:\s*,\s*\w+)+\s*\}", " ", ln)       # índices: y_{3,1}
    for trecho in PERMITIDOS:
        ln = ln.replace(trecho, " ")
    return ln


def numeros_na_linha(ln: str) -> list[str]:
    limpa = _limpa_linha(ln)
    return [m.group() for m in NUMERO.finditer(limpa)] + [m.group() for m in SEM_ZERO.finditer(limpa)]


def _verifica(linhas: list[str], base: int, achados: list) -> None:
    """Linhas de prosa (base: o índice da primeira no arquivo): anota os números digitados e
    entra nas diretivas de prosa; blocos de código e diretivas de código ficam de fora."""
    em_html = False
    pula_ate = -1  # fim de um bloco HTML (da linha que abre com uma tag até a linha em branco)
    for p in myst.pedacos(linhas):
        if isinstance(p, myst.Bloco):
            if em_html or p.nome is None or p.nome in CODIGO_DIRETIVAS:
                continue
            if p.nome in ARG_PROSA:
                for n in numeros_na_linha(p.arg):
                    achados.append((base + p.inicio + 1, n, linhas[p.inicio]))
            _, conteudo, k = myst.opcoes(p.corpo)
            _verifica(conteudo, base + p.inicio + 1 + k, achados)
            continue
        i, ln = p
        if i <= pula_ate:
            continue
        # comentário HTML de várias linhas
        if em_html:
            if "-->" in ln:
                em_html = False
            continue
        if "<!--" in ln and "-->" not in ln.split("<!--", 1)[1]:
            em_html = True
            ln = ln.split("<!--", 1)[0]
        # bloco HTML: fora
        if re.match(r"^\s{0,3}</?[a-zA-Z][\w-]*(\s|/?>|$)", ln):
            j = i
            while j < len(linhas) and linhas[j].strip():
                j += 1
            pula_ate = j
            continue
        for n in numeros_na_linha(ln):
            achados.append((base + i + 1, n, linhas[i]))


def verificar_texto(texto: str) -> list[tuple[int, str, str]]:
    """-> [(linha 1-based, número achado, a linha)] para um texto MyST."""
    linhas = texto.split("\n")
    inicio = 0
    if linhas[0].strip() == "---":                # o cabeçalho YAML (front matter)
        inicio = myst.opcoes(linhas)[2]
    achados = []
    _verifica(linhas[inicio:], inicio, achados)
    return sorted(achados)


def verificar_script(texto: str) -> list[tuple[int, str, str]]:
    """O mesmo para um script no formato percent do jupytext: só as células `# %% [markdown]`,
    sem o `# ` de cada linha; as linhas apontadas são as do script."""
    linhas = texto.split("\n")
    achados, i = [], 0
    while i < len(linhas):
        if not linhas[i].startswith("# %% [markdown]"):
            i += 1
            continue
        ini = i = i + 1
        while i < len(linhas) and linhas[i].startswith("#") and not linhas[i].startswith("# %%"):
            i += 1
        celula = [ln[2:] if ln.startswith("# ") else ln[1:] for ln in linhas[ini:i]]
        _verifica(celula, ini, achados)
    return sorted((lin, n, linhas[lin - 1]) for lin, n, _ in achados)


def verificar_arquivo(caminho: Path) -> list[tuple[int, str, str]]:
    texto = Path(caminho).read_text(encoding="utf-8")
    return verificar_script(texto) if Path(caminho).suffix == ".py" else verificar_texto(texto)


def paginas(raiz: Path = RAIZ) -> list[Path]:
    """As páginas do livro e o script do notebook do laboratório (a prosa que o leitor lê)."""
    return sorted((raiz / "book").glob("*.md")) + [raiz / "lab" / "laboratorio_gpt2.py"]


def relatorio(arquivos) -> list[str]:
    saida = []
    for arq in arquivos:
        for lin, num, texto in verificar_arquivo(arq):
            rel = Path(arq).resolve()
            rel = rel.relative_to(RAIZ) if rel.is_relative_to(RAIZ) else rel
            saida.append(f"{rel}:{lin}: número digitado {num!r}: {texto.strip()[:120]}")
    return saida


if __name__ == "__main__":
    alvos = [Path(a) for a in sys.argv[1:]] or paginas()
    linhas = relatorio(alvos)
    for ln in linhas:
        print(ln)
    if linhas:
        print(f"\n{len(linhas)} números digitados. Calcule-os numa célula e cole com glue "
              "(veja CONTRIBUINDO.md).")
    sys.exit(1 if linhas else 0)
