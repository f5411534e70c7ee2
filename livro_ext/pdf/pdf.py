"""A edição em PDF: o livro inteiro num arquivo A4, com os mesmos números do site.

    python -m livro_ext.pdf.pdf           # (ou `make pdf`) depois de `make book`

Rota: o HTML de página única do Sphinx (`singlehtml`), impresso pelo Chromium do Debian (o
mesmo dos testes de navegador). Por quê: o build do site já executou os notebooks; o
`singlehtml` lê a mesma árvore de documentos (`_build/.doctrees`) e só escreve, então nada é
executado de novo e os números do PDF são os do site (os mesmos doctrees). O LaTeX pediria o
TeX do Debian (centenas de MB), outra fonte com ␣ e outro caminho para os widgets e diagramas.

Passos:
1. `singlehtml` com a configuração do livro, em `_build/singlehtml` (sem copiar o Pyodide:
   o PDF só precisa do MathJax);
2. `montar`: uma página só para impressão (`_build/pdf/livro.html`): capa, sumário, os
   capítulos na ordem do `_toc.yml` (numerados, cada um numa página nova), sem barras nem
   botões e sem scripts além do MathJax; respostas e notas recolhidas abertas; cada widget com
   o seu estado do build e uma linha dizendo onde está a versão viva; links relativos levados
   à âncora no PDF ou ao site (`religa`); tokens, números e URLs inteiros (`protege`); hifenização do português
   (hífens opcionais do `pyphen`, pois o Chromium sem rede não tem os dicionários);
3. `pdf_imprime.mjs`: o Chromium espera o MathJax, encolhe o que não cabe na coluna, troca os
   hífens opcionais que quebraram a linha por hífens e tira os outros (a camada de texto do PDF
   fica sem U+00AD: a busca acha a palavra), imprime uma vez, lê com o `pdftotext` a página de cada capítulo, escreve-as no sumário e imprime de
   novo (o sumário não muda de tamanho), com número de página no pé e marcadores.

Fica em `_build/html/livro.pdf` (o site publica) e `_build/pdf/paginas.json` (a primeira página
de cada capítulo, para os testes). A página `book/numeros` (a razão de números, centenas de
linhas de tabela) fica só no site; o PDF diz onde.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ..widgets import CLASSE_WIDGET

RAIZ = Path(__file__).resolve().parents[2]
AQUI = Path(__file__).resolve().parent
BUILD = RAIZ / "_build"
SINGLE = BUILD / "singlehtml"
SAIDA = BUILD / "pdf"
PDF = BUILD / "html" / "livro.pdf"
FORA_DO_PDF = {"book/numeros"}  # fica só no site
NBSP, SHY = "\u00a0", "\u00ad"


def _erro(msg: str):
    raise SystemExit(f"pdf: {msg}")


# ---------------------------------------------------------------------------
# 1. singlehtml, reaproveitando a execução do build do site
# ---------------------------------------------------------------------------
def singlehtml():
    """Roda o Jupyter Book com o construtor singlehtml, na mesma árvore de doctrees do site."""
    if not (BUILD / ".doctrees" / "environment.pickle").exists() or not (BUILD / "html" / "index.html").exists():
        _erro("falta o build do site: rode `make book` antes de `make pdf`.")
    from ..widgets import pos_build

    def so_mathjax(saida):
        """No lugar de pos_build.copia: o PDF não precisa do Pyodide, só do MathJax."""
        mj = RAIZ / "node_modules" / "mathjax" / "es5"
        if not mj.is_dir():
            raise SystemExit("Falta node_modules/mathjax: rode `npm ci` (o `make book` já faz isso).")
        shutil.copytree(mj, Path(saida) / "_static" / "mathjax", dirs_exist_ok=True)

    pos_build.copia = so_mathjax
    from jupyter_book.cli.main import build

    os.chdir(RAIZ)
    try:
        build.main(["--builder", "singlehtml", "-W", "-n", "--keep-going", "."], standalone_mode=False)
    except SystemExit as e:  # o click encerra com SystemExit(código)
        if e.code:
            _erro(f"o singlehtml falhou (código {e.code}).")
    # O Sphinx reaproveitou o ambiente? Se tivesse lido as páginas de novo, teria executado
    # os notebooks outra vez (e o PDF poderia não ter os números do site).
    if not (SINGLE / "book" / "index.html").exists():
        _erro("o singlehtml não escreveu _build/singlehtml/book/index.html.")


# ---------------------------------------------------------------------------
# 2. a página para impressão
# ---------------------------------------------------------------------------
def site_publicado(ambiente=None) -> str:
    """O endereço do site no GitHub Pages (do GITHUB_REPOSITORY ou do repositório do _config.yml)."""
    from ..livro import URL_GITHUB, repositorio

    url_config = ""
    m = re.search(r"^\s*url:\s*(\S+)", (RAIZ / "_config.yml").read_text(encoding="utf-8"), re.M)
    if m:
        url_config = m.group(1)
    url = repositorio(url_config, ambiente)
    m = URL_GITHUB.match(url)
    if not m:
        return ""
    return f"https://{m.group(1).lower()}.github.io/{m.group(2)}/"


def capitulos_do_toc() -> list[dict]:
    """As páginas na ordem do _toc.yml, com a parte de cada uma (a abertura não tem parte)."""
    import yaml

    toc = yaml.safe_load((RAIZ / "_toc.yml").read_text(encoding="utf-8"))
    saida = [{"doc": toc["root"], "parte": None}]
    for parte in toc.get("parts", []):
        for cap in parte.get("chapters", []):
            saida.append({"doc": cap["file"], "parte": parte.get("caption")})
    return saida


_PALAVRA = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ]{7,}")
_NAO_HIFENIZAR = {"pre", "code", "kbd", "script", "style", "svg", "math", "mjx-container", "a", "h1", "h2",
                  "h3", "h4", "title", "button", "input", "select", "option", "textarea"}


def hifeniza(soup):
    """Hífens opcionais (U+00AD) nas palavras longas do texto corrido (nunca em código,
    matemática, números, títulos, links ou widgets)."""
    import pyphen

    dic = pyphen.Pyphen(lang="pt_BR", left=3, right=3)
    cache: dict[str, str] = {}

    def palavra(m):
        p = m.group(0)
        if p not in cache:
            cache[p] = dic.inserted(p, hyphen=SHY)
        return cache[p]

    from bs4 import NavigableString
    for no in list(soup.find_all(string=True)):
        if type(no) is not NavigableString or not _PALAVRA.search(no):
            continue
        pular = False
        for pai in no.parents:
            classes = pai.get("class") or []
            if pai.name in _NAO_HIFENIZAR or "math" in classes or CLASSE_WIDGET in classes \
                    or "pdf-sumario" in classes or "pdf-inteiro" in classes or "pdf-url" in classes or "cell_output" in classes or "highlight" in classes:
                pular = True
                break
        if not pular:
            texto = str(no)
            # a matemática em linha do MathJax (\(...\)) fica intacta
            partes = re.split(r"(\\\(.*?\\\)|\$[^$]*\$)", texto)
            novo = "".join(p if i % 2 else _PALAVRA.sub(palavra, p) for i, p in enumerate(partes))
            if novo != texto:
                no.replace_with(novo)


def religa(artigo, ancora_do_doc: dict, site: str):
    """Cada link relativo leva a algum lugar no papel: uma âncora do PDF (citação, referência
    cruzada, o capítulo de um passo) ou, para o que fica só no site, o endereço publicado.
    Sem isto, o Chromium os escreve como links para a origem falsa da impressão (livro.pdf)."""
    ids = {el["id"] for el in artigo.find_all(id=True)}
    for a in artigo.find_all("a", href=True):
        href = a["href"]
        if re.match(r"^[a-z][\w+.-]*:", href) or href.startswith("//"):
            continue  # já é um endereço de verdade
        caminho, _, ancora = href.partition("#")
        caminho = re.sub(r"^(\./|\.\./)+", "", caminho)
        doc = re.sub(r"\.html$", "", caminho)
        if doc and "/" not in doc:
            doc = "book/" + doc  # (o singlehtml escreve os passos relativos a book/)
        if not caminho or doc == "book/index":  # a página única: a âncora está no papel?
            novo = ancora if ancora in ids else ancora_do_doc.get(ancora.removeprefix("document-") or doc)
            caminho = "" if not ancora or novo else caminho
        else:
            novo = (ancora if ancora in ids else ancora_do_doc[doc]) if doc in ancora_do_doc else None
        if novo:
            a["href"] = "#" + novo
        elif site and caminho:  # um arquivo do site (um notebook, a página dos números)
            a["href"] = site + caminho + ("#" + ancora if ancora else "")
        else:
            a.unwrap()  # uma âncora que não existe em lugar nenhum: fica o texto


_TOKEN = re.compile(r"␣\S+")
_URL = re.compile(r"(?:https?://|www\.)\S+|\b[\w-]+\.(?:com|org|io|html|md|py|pdf)\b\S*")
_NUMERO = re.compile(r"(?<=\d)\s+(?=[·×=]\s*[−-]?\d)|(?<=[·×=])\s+(?=[−-]?\d)")
# letras sobrescritas cujo glifo a DejaVu Serif Bold desenha errado (o ᵀ sai como ˢ): vão na
# sem serifa, que as tem certas em todo peso (tests/test_pdf_leitor.py compara os glifos)
_MODIFICADORAS = re.compile(r"[\u1d2c-\u1d6a]")


def protege(artigo, doc):
    """Tokens (␣visualize) e números com operador (6,7 · 10⁻⁶) não se partem nem hifenizam:
    cada token vai num <span class="pdf-inteiro"> (white-space: nowrap), e os espaços de um
    número com operador viram espaços que não quebram. Uma URL (<span class="pdf-url">) nunca
    leva hífen; se não cabe na linha, quebra depois de uma barra. As letras sobrescritas vão
    num <span class="pdf-glifo"> (a fonte certa)."""
    from bs4 import NavigableString

    for no in list(artigo.find_all(string=True)):
        if type(no) is not NavigableString or no.find_parent(["pre", "code", "script", "style", "svg",
                                                               "mjx-container", "math"]) is not None:
            continue
        texto = str(no)
        texto = _NUMERO.sub(NBSP, texto)
        pedacos = re.split(f"({_TOKEN.pattern}|{_URL.pattern}|{_MODIFICADORAS.pattern})", texto)
        if len(pedacos) == 1:
            if texto != str(no):
                no.replace_with(texto)
            continue
        novos = []
        for i, p in enumerate(pedacos):
            if not p:
                continue
            if i % 2:
                url = _URL.fullmatch(p) and not _TOKEN.fullmatch(p)
                classe = "pdf-glifo" if _MODIFICADORAS.fullmatch(p) else "pdf-url" if url else "pdf-inteiro"
                span = doc.new_tag("span", attrs={"class": classe})
                if url:  # uma URL longa só quebra depois de uma barra, sem hífen
                    for j, trecho in enumerate(re.split(r"(?<=[^/]/)(?=[^/])", p)):
                        if j:
                            span.append(doc.new_tag("wbr"))
                        span.append(trecho)
                else:
                    span.string = p
                novos.append(span)
            else:
                novos.append(NavigableString(p))
        primeiro = novos[0]
        no.replace_with(primeiro)
        for x in novos[1:]:
            primeiro.insert_after(x)
            primeiro = x


def montar(site: str | None = None) -> Path:
    """Escreve _build/pdf/livro.html a partir de _build/singlehtml/book/index.html."""
    from bs4 import BeautifulSoup

    origem = SINGLE / "book" / "index.html"
    if not origem.exists():
        _erro(f"falta {origem.relative_to(RAIZ)}: rode o singlehtml antes.")
    site = site_publicado() if site is None else site
    doc = BeautifulSoup(origem.read_text(encoding="utf-8"), "html.parser")
    artigo = doc.find("article", class_="bd-article")
    if artigo is None:
        _erro("o singlehtml não tem <article class='bd-article'> (o tema mudou?).")

    # as seções de cada documento: o singlehtml põe cada página dentro do toctree da abertura,
    # depois de um <span id="document-...">; aqui elas saem de lá e ficam em sequência
    capitulos = capitulos_do_toc()
    secoes = {}
    for cap in capitulos:
        if cap["doc"] == capitulos[0]["doc"]:
            secao = artigo.find("section")
        else:
            marca = artigo.find("span", id=f"document-{cap['doc']}")
            secao = marca.find_next_sibling("section") if marca else None
            if marca is not None:
                marca.decompose()
        if secao is None:
            _erro(f"o singlehtml não tem a página {cap['doc']} do _toc.yml.")
        secoes[cap["doc"]] = secao
    for doc_ in reversed(list(secoes)):  # as de dentro primeiro
        secoes[doc_].extract()
    # dentro do toctree, o título de cada página desceu um nível (h2); sobe de volta
    for doc_, secao in secoes.items():
        if doc_ != capitulos[0]["doc"]:
            for h in secao.find_all(["h2", "h3", "h4", "h5", "h6"]):
                h.name = f"h{int(h.name[1]) - 1}"
    # o que sobrou do toctree (o sumário interno do singlehtml) sai: o PDF tem o seu, com páginas
    for t in list(secoes.values())[0].find_all("div", class_="toctree-wrapper"):
        t.decompose()
    artigo.clear()
    capitulos = [c for c in capitulos if c["doc"] not in FORA_DO_PDF]
    for cap in capitulos:
        artigo.append(secoes[cap["doc"]])

    # capítulos numerados (a abertura e a parte "Referência" não levam número)
    n = 0
    sumario = []
    for i, cap in enumerate(capitulos):
        secao = secoes[cap["doc"]]
        h1 = secao.find("h1")
        for a in h1.find_all("a", class_="headerlink"):
            a.decompose()
        titulo = h1.get_text(" ", strip=True)
        numerado = cap["parte"] not in (None, "Referência")
        if numerado:
            n += 1
            rot = doc.new_tag("span", attrs={"class": "pdf-numero"})
            rot.string = f"{n}"
            h1.insert(0, rot)
        classes = secao.get("class", []) + ["pdf-capitulo"]
        secao["class"] = classes
        secao["id"] = secao.get("id") or f"pdf-cap-{i}"
        anterior = capitulos[i - 1]["parte"] if i else None
        if cap["parte"] and cap["parte"] != anterior:
            cab = doc.new_tag("p", attrs={"class": "pdf-parte"})
            cab.string = cap["parte"]
            secao.insert(0, cab)
        # marcador invisível (só na 1ª impressão) para achar a página do capítulo no PDF
        m = doc.new_tag("span", attrs={"class": "pdf-marca"})
        m.string = f"@@PDFCAP{i:02d}@@"
        secao.insert(0, m)
        pagina_site = site + cap["doc"] + ".html" if site else ""
        sumario.append({"i": i, "doc": cap["doc"], "titulo": titulo, "numero": n if numerado else None,
                        "parte": cap["parte"], "ancora": secao["id"], "site": pagina_site})
        # cada widget: o estado do build e onde está a versão viva
        for w in secao.find_all(class_=CLASSE_WIDGET):
            p = doc.new_tag("p", attrs={"class": "pdf-vivo"})
            p.append("Aqui, o estado inicial do widget. A versão viva, que responde, está no site")
            if pagina_site:
                p.append(": ")
                a = doc.new_tag("a", href=pagina_site)
                a.string = pagina_site
                p.append(a)
            p.append(".")
            w.insert_after(p)

    # o link "o livro em PDF" da abertura: no papel, aponta o PDF do site
    for a in artigo.select("a.livro-pdf"):
        if site:
            a["href"] = site + "livro.pdf"
        else:
            a.unwrap()
    # respostas (dropdown do sphinx-design) e notas recolhidas: abertas no papel, e em <div>:
    # dentro de um <details>, o Chromium não mantém o título ("Resposta") com o conteúdo
    for d in artigo.find_all("details"):
        d.name = "div"
        d["class"] = d.get("class", []) + ["pdf-details"]
    for sm in artigo.find_all("summary"):
        sm.name = "div"
        sm["class"] = sm.get("class", []) + ["pdf-summary"]
    # cada termo do glossário com a sua definição, num bloco que não se parte (<div> em <dl> vale)
    for dt in artigo.select("dl.glossary > dt"):
        bloco = doc.new_tag("div", attrs={"class": "pdf-termo"})
        dt.insert_before(bloco)
        dds = []
        for irmao in dt.find_next_siblings():
            if irmao.name != "dd":
                break
            dds.append(irmao)
        for el in [dt, *dds]:
            bloco.append(el.extract())
    # botões e enfeites de tela
    for sel in [".headerlink", ".copybtn", ".toggle-button", "script"]:
        for el in artigo.select(sel):
            el.decompose()
    for el in artigo.find_all("button"):
        if el.find_parent(class_=CLASSE_WIDGET) is None:
            el.decompose()

    religa(artigo, {c["doc"]: secoes[c["doc"]]["id"] for c in capitulos}, site)
    protege(artigo, doc)
    hifeniza(artigo)

    # a página nova: as folhas de estilo do singlehtml, o MathJax e mais nada de script
    cabeca = doc.head
    estilos = [str(l) for l in cabeca.find_all("link", rel="stylesheet")]
    estilos = [e.replace('href="../_static/', 'href="_static/') for e in estilos]
    mathjax = []
    for s in cabeca.find_all("script"):
        if s.get("src", "").find("mathjax/") >= 0 or "window.MathJax" in (s.string or ""):
            mathjax.append(str(s).replace('src="../_static/', 'src="_static/'))
    # sem MathJax (a matemática já vem desenhada do build), a impressão não espera por ele; mas
    # as fórmulas desenhadas precisam da folha de estilo do MathJax (as fontes TeX): sem ela, o
    # Chromium as escreve com outra fonte, e o que o MathJax posicionou sai torto
    for st in cabeca.find_all("style", id="MJX-CHTML-styles"):
        mathjax.append(str(st).replace('url("../_static/', 'url("_static/'))

    titulo_livro = (doc.title.string or "").split("—")[0].strip() if doc.title else ""
    capa = _capa(titulo_livro, site)
    corpo = str(artigo)
    corpo = corpo.replace('src="../_images/', 'src="_images/').replace('src="../_static/', 'src="_static/')
    html = (
        '<!DOCTYPE html>\n<html lang="pt-BR" data-theme="light" data-mode="light">\n<head>\n'
        '<meta charset="utf-8">\n'
        f"<title>{_escape(titulo_livro)}</title>\n"
        + "\n".join(estilos)
        + '\n<link rel="stylesheet" href="_static/impressao.css">\n'
        + "\n".join(mathjax)
        + "\n</head>\n<body>\n"
        + capa
        + _sumario_html(sumario)
        + '<main class="bd-main"><div class="bd-content"><div class="bd-article-container">'
        + corpo
        + "</div></div></main>\n</body>\n</html>\n"
    )
    SAIDA.mkdir(parents=True, exist_ok=True)
    # os arquivos da página única (_static, _images) ficam onde estão; a página nova vai ao lado
    destino = SINGLE / "livro_pdf.html"
    destino.write_text(html, encoding="utf-8")
    shutil.copy2(RAIZ / "book" / "_static" / "impressao.css", SINGLE / "_static" / "impressao.css")
    (SAIDA / "capitulos.json").write_text(json.dumps(sumario, ensure_ascii=False, indent=1), encoding="utf-8")
    return destino


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _capa(titulo: str, site: str) -> str:
    import yaml

    cfg = yaml.safe_load((RAIZ / "_config.yml").read_text(encoding="utf-8"))
    autor = cfg.get("author", "")
    partes = titulo.split(":", 1)
    principal = partes[0].strip()
    sub = partes[1].strip() if len(partes) > 1 else ""
    linha_site = (f'<p class="pdf-capa-site">A versão viva, com os widgets que respondem: '
                  f'<a href="{site}">{_escape(site)}</a></p>') if site else ""
    return (
        '<section class="pdf-capa">'
        f'<h1 class="pdf-capa-titulo">{_escape(principal)}</h1>'
        + (f'<p class="pdf-capa-sub">{_escape(sub)}</p>' if sub else "")
        + f'<p class="pdf-capa-autor">{_escape(autor)}</p>'
        + '<p class="pdf-capa-nota">Edição em PDF, construída com o site a partir dos mesmos arquivos: '
          "todo número impresso aqui foi calculado pelo código do livro, quando ele foi construído, e "
          "conferido contra a mesma trava de números.</p>"
        + linha_site
        + "</section>\n"
    )


def _sumario_html(sumario: list[dict]) -> str:
    linhas = ['<nav class="pdf-sumario" aria-label="Sumário"><h1>Sumário</h1><ol>']
    parte = None
    for s in sumario:
        if s["parte"] and s["parte"] != parte:
            linhas.append(f'<li class="pdf-sumario-parte">{_escape(s["parte"])}</li>')
        parte = s["parte"]
        num = f'<span class="pdf-sumario-num">{s["numero"]}</span>' if s["numero"] else '<span class="pdf-sumario-num"></span>'
        linhas.append(
            f'<li><a href="#{s["ancora"]}">{num}<span class="pdf-sumario-titulo">{_escape(s["titulo"])}</span>'
            f'<span class="pdf-sumario-pag" data-cap="{s["i"]}"></span></a></li>')
    linhas.append("</ol></nav>\n")
    return "".join(linhas)


# ---------------------------------------------------------------------------
# 3. a impressão
# ---------------------------------------------------------------------------
def imprimir(html: Path) -> Path:
    if not shutil.which("pdftotext"):
        _erro("falta o pdftotext (pacote poppler-utils do Debian): `make pdf` o instala como root.")
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    PDF.parent.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["node", str(AQUI / "pdf_imprime.mjs"), str(html), str(PDF), str(SAIDA / "paginas.json")],
                       env={**os.environ, "CHROMIUM": chromium}, cwd=RAIZ)
    if r.returncode:
        _erro("a impressão no Chromium falhou (ver acima).")
    return PDF


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "--sem-singlehtml" not in argv:
        singlehtml()
    html = montar()
    pdf = imprimir(html)
    info = json.loads((SAIDA / "paginas.json").read_text(encoding="utf-8"))
    mib = pdf.stat().st_size / 2**20
    print(f"PDF pronto: {pdf.relative_to(RAIZ)} ({info['paginas']} páginas, {mib:.1f} MiB)")


if __name__ == "__main__":
    main()
