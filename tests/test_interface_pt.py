"""O site fala português: texto alternativo, rótulos do tema, descrições das páginas.

Os testes com `build` leem o HTML de um `make book` já feito; os outros rodam sem build.
"""
import html
import importlib
import re
from html.parser import HTMLParser

import pytest



def _modulo(antigo, novo):
    """O módulo do pacote pelo nome (`antigo`, o nome de antes do pacote, fica só como rótulo)."""
    return importlib.import_module(novo)


# Palavras curtas que quase toda frase em português tem (e o inglês não).
PORTUGUES = {"de", "do", "da", "dos", "das", "com", "em", "no", "na", "nos", "nas", "um", "uma",
             "para", "que", "e", "o", "os", "as", "ao", "à", "por", "se"}
INGLES = {"the", "of", "and", "logo", "image", "figure", "with", "toggle", "click", "hidden",
          "content", "copy", "show", "hide"}

# Textos fixos em inglês do sphinx-book-theme, do pydata-sphinx-theme e das extensões.
INGLES_DO_TEMA = [
    "Toggle hidden content", "Colab logo", "Click to show", "Click to hide", "Copy to clipboard",
    "Copied!", "Failed to copy", "Skip to main content", "Back to top", "Show code cell",
    "Hide code cell", "Search Results", "Print to PDF", "Download source file",
    "Download notebook file", "Download this page", "Launch Binder", "On this page",
    "previous page", "next page", "Toggle navigation", "Edit this page", "Open an issue",
    "Source repository", "Fullscreen mode", "System Settings", "Search the docs", "Search this book",
    "Table of Contents", "Contents", "By the", "Last updated on", "Theme by", "Built with",
    "Color mode", "Light", "Dark",
]


class _Pagina(HTMLParser):
    """Imagens, figuras, SVGs, metas e o texto fora de <script>/<style> de uma página."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.imgs, self.svgs, self.metas, self.attrs, self.texto = [], [], [], [], []
        self._pula = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "style"):
            self._pula += 1
        if tag == "img":
            self.imgs.append(a)
        if tag == "svg":
            self.svgs.append(a)
        if tag == "meta":
            self.metas.append(a)
        for nome in ("alt", "title", "aria-label", "placeholder", "data-tooltip"):
            if a.get(nome):
                self.attrs.append(a[nome])

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._pula = max(0, self._pula - 1)

    def handle_data(self, data):
        if not self._pula:
            self.texto.append(data)


def _paginas(build):
    """As páginas do site (sem os moldes do tema em _static nem o redirecionamento da raiz)."""
    html_dir = build / "html"
    paginas = [p for p in sorted(html_dir.rglob("*.html")) if "_static" not in p.relative_to(html_dir).parts
               and 'http-equiv="Refresh"' not in p.read_text(encoding="utf-8")[:200]]
    assert len(paginas) >= 17, [p.name for p in paginas]
    return paginas


def _le(caminho):
    p = _Pagina()
    p.feed(caminho.read_text(encoding="utf-8"))
    return p


def _palavras(texto):
    return {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]+", texto)}


def eh_portugues(texto):
    """Tem palavras do português, nenhuma palavra típica do inglês, e não é um caminho de arquivo."""
    if re.search(r"\.(png|jpe?g|svg|gif)\b|/_images/|^\.\./", texto):
        return False
    p = _palavras(texto)
    return bool(p & PORTUGUES or texto.startswith("Logotipo")) and not p & INGLES


def test_o_detector_de_portugues_funciona():
    assert eh_portugues("Barras horizontais com as probabilidades do próximo token.")
    assert eh_portugues("Logotipo do Colab")
    assert not eh_portugues("Colab logo")
    assert not eh_portugues("../_images/15e1d88f64af.png")
    assert not eh_portugues("Toggle hidden content")


def test_toda_imagem_tem_texto_alternativo_em_portugues(build):
    ruins = []
    for pagina in _paginas(build):
        for img in _le(pagina).imgs:
            alt = (img.get("alt") or "").strip()
            if not alt or not eh_portugues(alt):
                ruins.append((pagina.name, img.get("src"), alt))
    assert not ruins, ruins


def test_todo_desenho_tem_rotulo_em_portugues(build):
    """Os diagramas SVG (role="img" ou "group") levam um aria-label em português."""
    ruins, total = [], 0
    for pagina in _paginas(build):
        for svg in _le(pagina).svgs:
            if svg.get("role") not in ("img", "group"):
                continue
            total += 1
            rotulo = svg.get("aria-label", "")
            if len(rotulo) < 40 or not eh_portugues(rotulo):
                ruins.append((pagina.name, rotulo[:80]))
    assert total >= 9 and not ruins, ruins


def test_nenhum_texto_do_tema_em_ingles(build):
    achados = []
    for pagina in _paginas(build):
        p = _le(pagina)
        visivel = " ".join(" ".join(p.texto).split())
        for s in INGLES_DO_TEMA:
            padrao = rf"(?<![\w-]){re.escape(s)}(?![\w-])"
            if re.search(padrao, visivel) or any(re.search(padrao, a) for a in p.attrs):
                achados.append((pagina.name, s))
    assert not achados, achados


def test_scripts_das_extensoes_em_portugues(build):
    estatico = build / "html" / "_static"
    toggle = (estatico / "togglebutton.js").read_text(encoding="utf-8")
    assert "Toggle hidden content" not in toggle and "Mostrar ou esconder o conteúdo" in toggle
    copia = (estatico / "copybutton.js").read_text(encoding="utf-8")
    assert "'pt-BR': {" in copia and "'copy': 'Copiar'" in copia
    # o copybutton escolhe a língua pelo lang da página: tem de ser exatamente a chave acima
    assert '<html lang="pt-BR"' in (build / "html" / "book" / "tokens.html").read_text(encoding="utf-8")


def test_toda_pagina_tem_descricao_em_portugues(build):
    ruins = []
    for pagina in _paginas(build):
        descricoes = [m.get("content", "") for m in _le(pagina).metas if m.get("name") == "description"]
        d = descricoes[0] if len(descricoes) == 1 else ""
        if not (50 <= len(d) <= 210) or not eh_portugues(d) or "\\" in d or "{glue" in d:
            ruins.append((pagina.name, descricoes))
    assert not ruins, ruins


def test_descricao_sai_do_primeiro_paragrafo_com_formulas_em_texto():
    from docutils import nodes
    descricao_da_pagina = _modulo("tema", "livro_ext.tema.tema").descricao_da_pagina

    doc = nodes.document(None, None)
    aviso = nodes.note("", nodes.paragraph(text="Recebe: isto não é a descrição, mesmo sendo bem comprido."))
    p = nodes.paragraph()
    p += [nodes.Text("Cada linha tem "), nodes.math(text=r"d = 4"), nodes.Text(" números, e a forma é "),
          nodes.math(text=r"n \times d"), nodes.Text(" do começo ao fim do caminho inteiro.")]
    doc += [aviso, p]
    desc = descricao_da_pagina(doc, "Embeddings")
    assert desc == "Embeddings. Cada linha tem d = 4 números, e a forma é n × d do começo ao fim do caminho inteiro."
    p += nodes.Text(" palavra" * 60)
    longa = descricao_da_pagina(doc, "Embeddings")
    assert longa.endswith("…") and len(longa) <= 201


def test_nota_para_instrutores_recolhida_e_marcada(build):
    texto = (build / "html" / "book" / "proximo_token.html").read_text(encoding="utf-8")
    m = re.search(r'<details class="([^"]*nota-instrutor[^"]*)"([^>]*)>(.*?)</summary>', texto, re.S)
    assert m, "a nota para quem dá o curso não é um dropdown marcado"
    assert " open" not in m.group(2) and "para instrutores" in html.unescape(m.group(3))


# ---------------------------------------------------------------------------
# Sem build: os widgets dos passos e o diagrama da consulta
# ---------------------------------------------------------------------------
def test_widgets_nao_chamam_o_divisor_da_layernorm_de_sigma():
    """σ é a sigmoide no glossário: o divisor da LN aparece como √(σ² + ε)."""
    wp = _modulo("widgets_passos", "livro.widgets.passos")
    for nome in ("qkv", "bloco"):
        padrao, _, calcula = wp.REGISTRO[nome]
        c = padrao()
        saidas = [calcula(c, None, None)[0]]
        if nome == "bloco":
            saidas.append(calcula(c, "tudo", None)[0])
        for s in saidas:
            assert "√(σ² + ε)" in s or nome == "bloco" and "u = LN" not in s, nome
            assert not re.search(r"σ = \d|e σ = |, σ = ", s), (nome, s[:300])


@pytest.mark.parametrize("c", [0, 1])
def test_diagrama_da_consulta_tem_os_numeros_do_brinquedo(c):
    import xml.etree.ElementTree as ET

    b = _modulo("brinquedo", "livro.brinquedo")
    dg = _modulo("diagramas", "livro.diagramas")
    fmt = _modulo("formato", "livro.formato")
    at = b.atencao(b.LN(b.embed(b.IDS_PROMPT)))
    n = len(b.IDS_PROMPT)
    d = dg.consulta(c)
    textos = ["".join(t.itertext()) for t in ET.fromstring(d.svg).iter("{http://www.w3.org/2000/svg}text")]
    q = b.cabeca(at["Q"], c)[n - 1]
    K, V = b.cabeca(at["K"], c), b.cabeca(at["V"], c)
    esperados = [fmt.vetor(q), fmt.vetor(at["O"][c][n - 1])]
    for j in range(n):
        qk = sum(a * k for a, k in zip(q, K[j]))
        assert abs(qk / b.d_h ** 0.5 - at["S"][c][n - 1][j]) < 1e-12
        esperados += [fmt.num(qk), fmt.num(at["S"][c][n - 1][j]), fmt.num(at["A"][c][n - 1][j]),
                      fmt.vetor(V[j])]
    tudo = "\n".join(textos)
    for e in esperados:
        assert e in tudo, e
        assert e in d.alt, e
    # uma linha por token visível, e o peso maior em negrito
    pesos = [fmt.num(x) for x in at["A"][c][n - 1]]
    assert sum(t in pesos for t in textos) == n
    raiz = ET.fromstring(d.svg)
    fortes = ["".join(t.itertext()) for t in raiz.iter("{http://www.w3.org/2000/svg}text")
              if "lv-forte" in t.get("class")]
    assert fmt.num(max(at["A"][c][n - 1])) in fortes
    assert float(raiz.get("width")) <= 358          # cabe num celular de 390 px sem encolher


def test_diagrama_da_consulta_recusa_cabeca_inexistente():
    dg = _modulo("diagramas", "livro.diagramas")
    with pytest.raises(ValueError, match="cabeça precisa ser um inteiro"):
        dg.consulta(2)
