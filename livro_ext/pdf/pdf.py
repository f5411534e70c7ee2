"""A edição em PDF (`make pdf`, depois do `make book`): o livro inteiro em A4, com os números do site.

1. `singlehtml`: a página única do Sphinx, dos doctrees do build (nada roda de novo);
2. `montar`: a página para impressão, `_build/singlehtml/livro_pdf.html`: capa, sumário, os capítulos do
   `_toc.yml` sem botões nem scripts, cada widget parado com o endereço do vivo, links religados, tokens e
   URLs inteiros, hífens do `pyphen` (o Chromium sem rede não tem os dicionários);
3. `pdf_imprime.mjs`: o Chromium imprime `_build/html/livro.pdf` (e `_build/pdf/paginas.json`).
"""
from __future__ import annotations

import functools
import itertools
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import yaml
from bs4 import BeautifulSoup, NavigableString

from ..livro import URL_GITHUB, repositorio
from ..widgets import CLASSE_WIDGET

RAIZ = Path(__file__).resolve().parents[2]
BUILD = RAIZ / "_build"
SINGLE = BUILD / "singlehtml"
SAIDA = BUILD / "pdf"
PDF = BUILD / "html" / "livro.pdf"
FORA_DO_PDF = {"book/numeros"}  # fica só no site
NBSP, SHY = "\u00a0", "\u00ad"


def _erro(msg: str):
    raise SystemExit(f"pdf: {msg}")


def _config() -> dict:
    return yaml.safe_load((RAIZ / "_config.yml").read_text(encoding="utf-8"))


def singlehtml():
    """O Jupyter Book com o construtor singlehtml, nos doctrees do site (o runtime dos widgets fica de fora)."""
    if not (BUILD / ".doctrees" / "environment.pickle").exists() or not (BUILD / "html" / "index.html").exists():
        _erro("falta o build do site: rode `make book` antes de `make pdf`.")
    from jupyter_book.cli.main import build

    os.chdir(RAIZ)
    shutil.rmtree(SINGLE, ignore_errors=True)  # numa pasta que sobrou, o Sphinx põe ?v= nos links: outros bytes
    try:
        build.main(["--builder", "singlehtml", "-W", "-n", "--keep-going", "."], standalone_mode=False)
    except SystemExit as e:  # o click encerra com SystemExit(código)
        if e.code:
            _erro(f"o singlehtml falhou (código {e.code}).")


def site_publicado(ambiente=None) -> str:
    """O endereço do site no GitHub Pages (do GITHUB_REPOSITORY ou do repositório do _config.yml)."""
    m = URL_GITHUB.match(repositorio(_config().get("repository", {}).get("url", ""), ambiente))
    return f"https://{m.group(1).lower()}.github.io/{m.group(2)}/" if m else ""


def capitulos_do_toc() -> list[dict]:
    """As páginas na ordem do _toc.yml, com a parte de cada uma (a abertura não tem parte)."""
    toc = yaml.safe_load((RAIZ / "_toc.yml").read_text(encoding="utf-8"))
    return [{"doc": toc["root"], "parte": None}] + [
        {"doc": cap["file"], "parte": parte.get("caption")}
        for parte in toc.get("parts", []) for cap in parte.get("chapters", [])]


def _textos(raiz, tags, classes=frozenset()):
    """Os textos simples de `raiz` que não estão dentro de `tags` nem de um elemento com uma das `classes`."""
    for no in list(raiz.find_all(string=True)):
        if type(no) is NavigableString and not any(
                pai.name in tags or classes.intersection(pai.get("class") or []) for pai in no.parents):
            yield no


_PALAVRA = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ]{7,}")
_NAO_HIFENIZAR = {"pre", "code", "kbd", "script", "style", "svg", "math", "mjx-container", "a", "h1", "h2",
                  "h3", "h4", "title", "button", "input", "select", "option", "textarea"}
_CLASSES_SEM_HIFEN = frozenset({"math", CLASSE_WIDGET, "pdf-sumario", "pdf-inteiro", "pdf-url", "cell_output",
                                "highlight"})


def hifeniza(soup):
    """Hífens opcionais (U+00AD) nas palavras longas do texto corrido (nunca em código, títulos, links, widgets)."""
    import pyphen

    dic = pyphen.Pyphen(lang="pt_BR", left=3, right=3)
    hifenizada = functools.cache(lambda p: dic.inserted(p, hyphen=SHY))

    for no in _textos(soup, _NAO_HIFENIZAR, _CLASSES_SEM_HIFEN):
        texto = str(no)
        if _PALAVRA.search(texto):
            # a matemática em linha do MathJax (\(...\)) fica intacta
            partes = re.split(r"(\\\(.*?\\\)|\$[^$]*\$)", texto)
            novo = "".join(p if i % 2 else _PALAVRA.sub(lambda m: hifenizada(m[0]), p) for i, p in enumerate(partes))
            if novo != texto:
                no.replace_with(novo)


def religa(artigo, ancora_do_doc: dict, site: str):
    """Cada link relativo leva a uma âncora do PDF ou, para o que fica só no site, ao endereço publicado."""
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
# letras sobrescritas que a DejaVu Serif Bold desenha errado (ᵀ como ˢ): vão na sem serifa (test_pdf_leitor.py)
_MODIFICADORAS = re.compile(r"[\u1d2c-\u1d6a]")
_PROTEGIDO = re.compile(f"({_TOKEN.pattern}|{_URL.pattern}|{_MODIFICADORAS.pattern})")


def _span(doc, p):
    """Um token (␣visualize) inteiro, uma URL que só quebra depois de uma barra, ou a letra sobrescrita."""
    url = _URL.fullmatch(p) and not _TOKEN.fullmatch(p)
    span = doc.new_tag("span", attrs={"class": "pdf-glifo" if _MODIFICADORAS.fullmatch(p) else
                                      "pdf-url" if url else "pdf-inteiro"})
    if not url:
        span.string = p
        return span
    for j, trecho in enumerate(re.split(r"(?<=[^/]/)(?=[^/])", p)):
        if j:
            span.append(doc.new_tag("wbr"))
        span.append(trecho)
    return span


def protege(artigo, doc):
    """Tokens, URLs e letras sobrescritas num <span> (`_span`); num número com operador, espaços que não quebram."""
    for no in _textos(artigo, {"pre", "code", "script", "style", "svg", "mjx-container", "math"}):
        texto = _NUMERO.sub(NBSP, str(no))
        pedacos = _PROTEGIDO.split(texto)
        if len(pedacos) == 1:
            if texto != str(no):
                no.replace_with(texto)
            continue
        novos = [_span(doc, p) if i % 2 else NavigableString(p) for i, p in enumerate(pedacos) if p]
        no.replace_with(*novos)


def _secoes(artigo, capitulos) -> dict:
    """As seções de cada página, tiradas de dentro do toctree da abertura, com os títulos um nível acima."""
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
    for doc_, secao in list(secoes.items())[1:]:
        for h in secao.find_all(["h2", "h3", "h4", "h5", "h6"]):
            h.name = f"h{int(h.name[1]) - 1}"
    # o sumário interno do singlehtml sai: o PDF tem o seu, com páginas
    for t in list(secoes.values())[0].find_all("div", class_="toctree-wrapper"):
        t.decompose()
    return secoes


def _tag(doc, nome: str, classe: str, texto: str):
    tag = doc.new_tag(nome, attrs={"class": classe})
    tag.string = texto
    return tag


def _capitulo(doc, secao, cap, i, anterior, n, site) -> dict:
    """Marca o capítulo `i` (número, parte, marcador da página, o endereço de cada widget) -> item do sumário."""
    h1 = secao.find("h1")
    for a in h1.find_all("a", class_="headerlink"):
        a.decompose()
    titulo = h1.get_text(" ", strip=True)
    numerado = cap["parte"] not in (None, "Referência")
    if numerado:
        h1.insert(0, _tag(doc, "span", "pdf-numero", f"{n}"))
    secao["class"] = secao.get("class", []) + ["pdf-capitulo"]
    secao["id"] = secao.get("id") or f"pdf-cap-{i}"
    if cap["parte"] and cap["parte"] != anterior:
        secao.insert(0, _tag(doc, "p", "pdf-parte", cap["parte"]))
    # marcador invisível (só na 1ª impressão) para achar a página do capítulo no PDF
    secao.insert(0, _tag(doc, "span", "pdf-marca", f"@@PDFCAP{i:02d}@@"))
    pagina_site = site + cap["doc"] + ".html" if site else ""
    link = f': <a href="{pagina_site}">{pagina_site}</a>' if pagina_site else ""
    for w in secao.find_all(class_=CLASSE_WIDGET):
        w.insert_after(BeautifulSoup(f'<p class="pdf-vivo">Aqui, o estado inicial do widget. A versão viva, que '
                                     f'responde, está no site{link}.</p>', "html.parser").p)
    return {"i": i, "doc": cap["doc"], "titulo": titulo, "numero": n if numerado else None,
            "parte": cap["parte"], "ancora": secao["id"], "site": pagina_site}


def _para_o_papel(doc, artigo, site):
    """O link do PDF da abertura, respostas e notas abertas, o glossário sem partir e sem botões de tela."""
    for a in artigo.select("a.livro-pdf"):
        if site:
            a["href"] = site + "livro.pdf"
        else:
            a.unwrap()
    # dentro de um <details>, o Chromium não mantém o título ("Resposta") com o conteúdo
    for tag, nome in [("details", "pdf-details"), ("summary", "pdf-summary")]:
        for el in artigo.find_all(tag):
            el.name = "div"
            el["class"] = el.get("class", []) + [nome]
    # cada termo do glossário com a sua definição, num bloco que não se parte (<div> em <dl> vale)
    for dt in artigo.select("dl.glossary > dt"):
        bloco = doc.new_tag("div", attrs={"class": "pdf-termo"})
        dt.insert_before(bloco)
        for el in [dt, *itertools.takewhile(lambda irmao: irmao.name == "dd", dt.find_next_siblings())]:
            bloco.append(el.extract())
    for el in artigo.select(".headerlink, .copybtn, .toggle-button, script"):
        el.decompose()
    for el in artigo.find_all("button"):
        if el.find_parent(class_=CLASSE_WIDGET) is None:
            el.decompose()


def montar(site: str | None = None) -> Path:
    """Escreve _build/singlehtml/livro_pdf.html a partir de _build/singlehtml/book/index.html."""
    origem = SINGLE / "book" / "index.html"
    if not origem.exists():
        _erro(f"falta {origem.relative_to(RAIZ)}: rode o singlehtml antes.")
    site = site_publicado() if site is None else site
    doc = BeautifulSoup(origem.read_text(encoding="utf-8"), "html.parser")
    artigo = doc.find("article", class_="bd-article")
    if artigo is None:
        _erro("o singlehtml não tem <article class='bd-article'> (o tema mudou?).")
    capitulos = capitulos_do_toc()
    secoes = _secoes(artigo, capitulos)
    artigo.clear()
    capitulos = [c for c in capitulos if c["doc"] not in FORA_DO_PDF]
    sumario = []
    n = 0
    for i, cap in enumerate(capitulos):
        artigo.append(secoes[cap["doc"]])
        n += cap["parte"] not in (None, "Referência")  # a abertura e a Referência não levam número
        anterior = capitulos[i - 1]["parte"] if i else None
        sumario.append(_capitulo(doc, secoes[cap["doc"]], cap, i, anterior, n, site))
    _para_o_papel(doc, artigo, site)
    religa(artigo, {c["doc"]: secoes[c["doc"]]["id"] for c in capitulos}, site)
    protege(artigo, doc)
    hifeniza(artigo)

    # a página nova: as folhas de estilo do singlehtml e a do MathJax (as fontes TeX das fórmulas), sem scripts
    cabeca = doc.head
    estilos = [str(e).replace('href="../_static/', 'href="_static/') for e in cabeca.find_all("link", rel="stylesheet")]
    mathjax = [str(s).replace('url("../_static/', 'url("_static/')
               for s in cabeca.find_all("style", id="MJX-CHTML-styles")]
    titulo_livro = (doc.title.string or "").split("—")[0].strip() if doc.title else ""
    corpo = str(artigo).replace('src="../_images/', 'src="_images/').replace('src="../_static/', 'src="_static/')
    pagina = (
        '<!DOCTYPE html>\n<html lang="pt-BR" data-theme="light" data-mode="light">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_escape(titulo_livro)}</title>\n" + "\n".join(estilos)
        + '\n<link rel="stylesheet" href="_static/impressao.css">\n' + "\n".join(mathjax) + "\n</head>\n<body>\n"
        + _capa(titulo_livro, site) + _sumario_html(sumario)
        + '<main class="bd-main"><div class="bd-content"><div class="bd-article-container">'
        + corpo + "</div></div></main>\n</body>\n</html>\n")
    SAIDA.mkdir(parents=True, exist_ok=True)
    # os arquivos da página única (_static, _images) ficam onde estão; a página nova vai ao lado
    destino = SINGLE / "livro_pdf.html"
    destino.write_text(pagina, encoding="utf-8")
    shutil.copy2(RAIZ / "book" / "_static" / "impressao.css", SINGLE / "_static" / "impressao.css")
    (SAIDA / "capitulos.json").write_text(json.dumps(sumario, ensure_ascii=False, indent=1), encoding="utf-8")
    return destino


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _capa(titulo: str, site: str) -> str:
    principal, _, sub = (p.strip() for p in titulo.partition(":"))
    linha_site = (f'<p class="pdf-capa-site">A versão viva, com os widgets que respondem: '
                  f'<a href="{site}">{_escape(site)}</a></p>') if site else ""
    return (
        f'<section class="pdf-capa"><h1 class="pdf-capa-titulo">{_escape(principal)}</h1>'
        + (f'<p class="pdf-capa-sub">{_escape(sub)}</p>' if sub else "")
        + f'<p class="pdf-capa-autor">{_escape(_config().get("author", ""))}</p>'
        + '<p class="pdf-capa-nota">Edição em PDF, construída com o site a partir dos mesmos arquivos: '
          "todo número impresso aqui foi calculado pelo código do livro, quando ele foi construído, e "
          "conferido contra a mesma trava de números.</p>"
        + linha_site + "</section>\n")


def _sumario_html(sumario: list[dict]) -> str:
    linhas = ['<nav class="pdf-sumario" aria-label="Sumário"><h1>Sumário</h1><ol>']
    parte = None
    for s in sumario:
        if s["parte"] and s["parte"] != parte:
            linhas.append(f'<li class="pdf-sumario-parte">{_escape(s["parte"])}</li>')
        parte = s["parte"]
        num = f'<span class="pdf-sumario-num">{s["numero"] or ""}</span>'
        linhas.append(
            f'<li><a href="#{s["ancora"]}">{num}<span class="pdf-sumario-titulo">{_escape(s["titulo"])}</span>'
            f'<span class="pdf-sumario-pag" data-cap="{s["i"]}"></span></a></li>')
    linhas.append("</ol></nav>\n")
    return "".join(linhas)


def imprimir(html: Path) -> Path:
    if not shutil.which("pdftotext"):
        _erro("falta o pdftotext (pacote poppler-utils do Debian): `make pdf` o instala como root.")
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    PDF.parent.mkdir(parents=True, exist_ok=True)
    imprime = Path(__file__).parent / "pdf_imprime.mjs"
    r = subprocess.run(["node", str(imprime), str(html), str(PDF), str(SAIDA / "paginas.json")],
                       env={**os.environ, "CHROMIUM": chromium}, cwd=RAIZ)
    if r.returncode:
        _erro("a impressão no Chromium falhou (ver acima).")
    return PDF


def main():
    singlehtml()
    pdf = imprimir(montar())
    info = json.loads((SAIDA / "paginas.json").read_text(encoding="utf-8"))
    print(f"PDF pronto: {pdf.relative_to(RAIZ)} ({info['paginas']} páginas, {pdf.stat().st_size / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
