"""Conferências do PDF (tests/test_pdf.py): os números da trava estão nele, e nada sai da margem.

- `confere_numeros`: cada valor colado de uma página (as chaves do `book/numeros.lock.json` que
  não são saída de célula nem widget) tem de aparecer, como o leitor o vê, no texto das páginas
  do PDF desse capítulo (`pdftotext`). Texto: a string inteira; tabela: cada célula; matemática:
  cada número, com sinal e vírgula ({,} → ",", {-} → "−"); diagrama: cada rótulo; figura: nada
  a ler. Um número que mudou (na trava ou no PDF) aparece como uma linha de problema.
- `confere_margens`: cada página é A4 e nenhuma palavra passa das margens (`pdftotext -bbox`).
"""
from __future__ import annotations

import json
import re
import subprocess
from html import unescape
from pathlib import Path

FIGURA = "(figura)"
A4_PT = (595.28, 841.89)
MARGEM_PT = 16 / 25.4 * 72  # 16 mm, a margem dos lados (book/_static/impressao.css e pdf_imprime.mjs)
_MATH_CMD = re.compile(r"\\[A-Za-z]+|\{[,.\-]\}|[_^]\{")


def paginas(pdf: Path) -> list[str]:
    """O texto de cada página do PDF (pdftotext, ordem de leitura)."""
    r = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True)
    folhas = r.stdout.decode("utf-8").split("\f")
    if folhas and not folhas[-1].strip():
        folhas.pop()
    return folhas


_ASPAS = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "–": "--", "—": "---", "…": "..."})


def normaliza(t: str) -> str:
    """Tira os hífens da hifenização (opcionais, U+00AD, e o da quebra de linha, U+2010),
    desfaz as aspas curvas do Sphinx (smartquotes: o site mostra as mesmas) e junta os
    espaços (NBSP incluído) num só."""
    t = re.sub("\u00ad?\u2010\n", "", t)
    t = t.replace("\u00ad", "").replace("\u00a0", " ").replace("\u202f", " ").translate(_ASPAS)
    t = re.sub(r"\s*×\s*", "×", t)  # "8 × 4" com espaços finos: o pdftotext às vezes os come
    return re.sub(r"\s+", " ", t).strip()


def _md(texto: str) -> str:
    """O texto de uma célula ou frase em Markdown como o leitor o lê (sem `, **, links)."""
    texto = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", texto)
    texto = texto.replace("`", "").replace("**", "")
    texto = re.sub(r"(?<!\w)\*(\S[^*]*)\*", r"\1", texto)
    return unescape(texto).strip()


def numeros_da_matematica(tex: str) -> list[str]:
    """Os números de uma fórmula LaTeX, como o MathJax os desenha: '{-}0{,}5' → '−0,5'."""
    t = tex.replace("{,}", ",").replace("{.}", ".").replace("{-}", "−")
    t = re.sub(r"\\text\{[^}]*\}", " ", t)           # palavras não são números
    t = re.sub(r"\\[A-Za-z]+", " ", t)                 # \frac, \cdot, \sqrt...
    t = re.sub(r"(?<![\w)\]}])-(?=\d)", "−", t)      # '-5' (sinal) → '−5'; 'a - 5' é subtração
    t = re.sub(r"[_^]\{?[a-zA-Z]", " ", t)             # índices com letras (x_j): não são números
    return re.findall(r"−?\d+(?:[.,]\d+)*", t)


def formas(valor: str) -> list[tuple[str, str]]:
    """O que o leitor vê de um valor colado: pares (tipo, trecho) que têm de estar no PDF."""
    if valor == FIGURA:
        return []
    if valor.startswith("(descrição:"):
        return [("desenhos", desenhos(valor))]
    linhas = valor.splitlines()
    if linhas and all(x.lstrip().startswith("|") for x in linhas):
        saida = []
        for linha in linhas:
            celulas = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", linha.strip()[1:-1])]
            if all(re.fullmatch(r":?-{3,}:?", c) for c in celulas if c):
                continue  # a linha que separa o cabeçalho
            for c in celulas:
                if c:
                    saida.extend(("celula", t) if k == "texto" else (k, t) for k, t in formas(c))
        return saida
    if "$" in valor:  # texto com matemática em linha: os pedaços de texto e os números da fórmula
        saida = []
        for i, p in enumerate(re.split(r"\$([^$]*)\$", valor)):
            if i % 2:
                saida.extend(("numero", n) for n in numeros_da_matematica(p))
            else:
                saida.extend(("texto", s.strip()) for s in re.split(r"\s{2,}", _md(p)) if s.strip(" ,.;:"))
        return saida
    if _MATH_CMD.search(valor):
        return [("numero", n) for n in numeros_da_matematica(valor)]
    return [("texto", _md(valor))]


def desenhos(valor: str) -> list[list[str]]:
    """Os rótulos de cada desenho de um diagrama. Cada desenho começa com "(descrição: …)" (o
    aria-label), o título e a descrição do SVG, que não se imprimem; o mapa "você está aqui"
    tem dois desenhos (largo e estreito) e só um aparece."""
    saida = []
    for bloco in re.split(r"^(?=\(descrição:)", valor, flags=re.M):
        linhas = [x.strip() for x in bloco.splitlines() if x.strip()]
        if not linhas:
            continue
        descricao = linhas[0][len("(descrição:"):].rstrip(")").strip()
        saida.append([x for x in linhas[2:] if x != descricao])
    return saida


def _achou(trecho: str, texto: str, sem_espaco: str) -> bool:
    """O trecho está no texto, sem pegar pedaço de outro número ('12' não vale dentro de '124').

    Também vale o texto com "406, 4" lido como "406,4": numa fórmula desenhada no build, o
    pdftotext às vezes põe um espaço depois da vírgula decimal."""
    alvo = normaliza(trecho)
    if not alvo:
        return True
    colado = re.sub(r"(\d),\s(\d)", r"\1,\2", texto)
    for onde, quem in ((texto, alvo), (sem_espaco, re.sub(r"\s", "", alvo)), (colado, alvo)):
        padrao = re.escape(quem)
        if quem[:1].isdigit() or quem[:1] == "−":
            padrao = r"(?<![\d,.])" + padrao
        if quem[-1:].isdigit():
            padrao += r"(?![\d]|[,.]\d)"
        if re.search(padrao, onde):
            return True
    return False


def confere_numeros(texto_capitulo: str, valores: dict) -> list[str]:
    """Uma linha por valor colado que não está no texto do capítulo (chave, o que faltou)."""
    texto = normaliza(texto_capitulo)
    sem_espaco = re.sub(r"\s", "", texto)
    problemas = []
    for chave, valor in sorted(valores.items()):
        if chave.startswith(("celula:", "widget:")):
            continue
        faltam = []
        for tipo, t in formas(valor):
            if tipo == "desenhos":
                if not any(all(_achou(r, texto, sem_espaco) for r in d) for d in t):
                    faltam.append(" / ".join(t[0]) if t else valor)
            elif tipo == "celula" and not _achou(t, texto, sem_espaco):
                # numa coluna estreita a célula quebra em linhas, e o pdftotext intercala as
                # células vizinhas: então cada pedaço dela (palavra ou número, inteiro) basta
                faltam += [p for p in re.split(r"[\s/]+", t) if not _achou(p.strip("():;,"), texto, sem_espaco)]
            elif not _achou(t, texto, sem_espaco):
                faltam.append(t)
        if faltam:
            problemas.append(f"{chave}: não está no PDF: {', '.join(repr(f) for f in faltam[:5])}")
    return problemas


_REF = re.compile(r"\{glue(?::\w+)?\}`([^`]+)`|^[`:]{3,}\{glue(?::\w+)?\}\s+(\S+)", re.M)


def valores_mostrados(md: Path, lock: dict) -> dict:
    """Os valores que a página mostra: cada glue que o fonte dela usa ({glue:...}`chave` ou
    ```{glue} chave```), com o valor da trava (também os de outra página, `pag.md::chave`).
    Um valor colado e não usado na página não está nela, no site nem no PDF."""
    pagina = "book/" + md.stem
    saida = {}
    for m in _REF.finditer(md.read_text(encoding="utf-8")):
        ref = m.group(1) or m.group(2)
        dono = pagina
        if "::" in ref:
            outro, ref = ref.split("::", 1)
            dono = "book/" + outro.removesuffix(".md")
        valores = lock.get(dono, {})
        chave = ref if ref in valores else ref.rsplit(":", 1)[0]
        if chave not in valores:
            raise KeyError(f"{pagina}: o glue {ref!r} não está na trava ({dono})")
        saida[f"{dono}::{chave}" if dono != pagina else chave] = valores[chave]
    return saida


def texto_dos_capitulos(pdf: Path, info_pdf: Path) -> dict[str, str]:
    """O texto de cada capítulo (das páginas de _build/pdf/paginas.json), por página do livro."""
    info = json.loads(Path(info_pdf, "paginas.json").read_text(encoding="utf-8"))
    caps = json.loads(Path(info_pdf, "capitulos.json").read_text(encoding="utf-8"))
    folhas = paginas(pdf)
    inicio = {int(k): v for k, v in info["inicio"].items()}
    saida = {}
    for cap in caps:
        i = cap["i"]
        fim = inicio.get(i + 1, len(folhas) + 1)
        saida[cap["doc"]] = "\n".join(_sem_rodape(f) for f in folhas[inicio[i] - 1:fim - 1])
    return saida


def _sem_rodape(folha: str) -> str:
    """A folha sem o número de página do rodapé (a última linha com texto, só dígitos): uma
    frase que continua na folha seguinte não pode ganhar um número no meio."""
    linhas = folha.rstrip().split("\n")
    if linhas and re.fullmatch(r"\s*\d+\s*", linhas[-1]):
        linhas.pop()
    return "\n".join(linhas)


def confere_margens(pdf: Path, folga=1.0) -> tuple[int, list[str]]:
    """(número de páginas, problemas): página que não é A4 ou palavra fora da coluna."""
    r = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, check=True)
    return margens_do_xml(r.stdout.decode("utf-8"), folga)


def margens_do_xml(xml: str, folga=1.0) -> tuple[int, list[str]]:
    """O mesmo que `confere_margens`, a partir da saída de `pdftotext -bbox`."""
    problemas, n = [], 0
    for m in re.finditer(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', xml, re.S):
        n += 1
        w, h = float(m.group(1)), float(m.group(2))
        if abs(w - A4_PT[0]) > 2 or abs(h - A4_PT[1]) > 2:
            problemas.append(f"página {n}: {w:.0f} × {h:.0f} pt, não A4")
        for p in re.finditer(r'<word xMin="([\d.-]+)" yMin="[\d.-]+" xMax="([\d.-]+)" yMax="[\d.-]+">([^<]*)</word>',
                             m.group(3)):
            x0, x1 = float(p.group(1)), float(p.group(2))
            if all("\ue000" <= c <= "\uf8ff" for c in unescape(p.group(3))):
                continue  # peça de um delimitador esticado do MathJax: a caixa da fonte não é a do desenho
            if x0 < MARGEM_PT - folga or x1 > w - MARGEM_PT + folga:
                problemas.append(f"página {n}: {unescape(p.group(3))!r} em x = {x0:.1f}…{x1:.1f} pt, "
                                 f"fora da coluna ({MARGEM_PT:.1f}…{w - MARGEM_PT:.1f})")
    return n, problemas
