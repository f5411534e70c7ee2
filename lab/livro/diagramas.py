"""Diagramas do modelo em SVG, desenhados por código: cada forma escrita no desenho é calculada.

Quatro desenhos, cada um devolvido como um `Diagrama` (o Jupyter e o myst-nb o mostram como HTML):

- `voce_esta_aqui(k)`: o mapa dos sete passos, com o passo k destacado e as formas que ele
  recebe e entrega;
- `caminho()`: o caminho inteiro, do texto ao próximo token, com as formas do brinquedo e do
  GPT-2 small lado a lado;
- `bloco()`: o bloco pré-LN, com o fluxo residual, as duas subcamadas e onde a LN fica;
- `consulta(c)`: a linha do último token numa cabeça, de q·k ao softmax e à média dos valores.

Na página: `cola("mapa", diagramas.voce_esta_aqui(3))` e ```` ```{glue} mapa ```` ````.
O SVG entra cru no HTML da página, então herda as cores do tema (claro ou escuro) pelas
classes `lv-*` de `book/_static/diagramas.css`; nenhuma cor é fixa aqui.

Só a biblioteca padrão (roda num notebook e no Pyodide). Os tamanhos vêm de `brinquedo`
e de `arquitetura.GPT2_SMALL`, lidos a cada chamada: mudar uma configuração muda o desenho
(e a trava de números, que guarda o texto de cada diagrama colado).

Medidas: uma unidade do viewBox é um pixel quando o desenho cabe na coluna; numa coluna
estreita ele encolhe inteiro (o texto junto). O caminho e o bloco são verticais e cabem quase
sem encolher numa coluna de celular; o mapa tem dois desenhos, largo e estreito, e o CSS mostra
um só, pela largura da coluna (consulta de contêiner). A largura de um texto é estimada por
cima, 0,6 em por caractere (`_largura`), para nada ser cortado.

Fora do livro (um notebook no Jupyter ou no Colab) não há diagramas.css: o HTML leva um
<style> de reserva com seletores :where(...), de especificidade zero, que o CSS do livro vence.
"""
import html
import math
import re

from livro import arquitetura as arq
from livro import brinquedo as b
from livro.formato import inteiro

PASSOS = ["Tokens", "Embeddings", "Q, K, V", "Máscaras e cabeças", "O bloco", "A saída",
          "O próximo token"]
PAGINAS = ["tokens", "embeddings", "qkv", "mascaras", "bloco", "saida", "proximo_token"]

FONTE = 13          # texto principal (px do viewBox)
FONTE_MENOR = 11.5  # formas e notas
EM_POR_CARACTERE = 0.6
LARGURA_ESTREITA = 340  # o mapa estreito: cabe sem encolher numa coluna de celular (390 px de tela)
BLOCOS_BRINQUEDO = 1  # o brinquedo tem um bloco só (brinquedo.bloco)


# ---------------------------------------------------------------------------
# Peças do SVG
# ---------------------------------------------------------------------------
class Diagrama:
    """Um ou mais SVGs (um por largura de coluna) com o texto alternativo.

    `svgs`: os SVGs, do mais largo ao mais estreito; o CSS mostra um só (consulta de contêiner).
    `alt`: o texto alternativo (o mesmo do aria-label de cada SVG).
    """

    def __init__(self, svgs, alt, rotulo_nav=None):
        self.svgs = [svgs] if isinstance(svgs, str) else list(svgs)
        self.alt = alt
        self.rotulo_nav = rotulo_nav

    @property
    def svg(self):
        return self.svgs[0]

    def _repr_html_(self):
        corpo = _RESERVA + "\n" + "\n".join(self.svgs)
        if self.rotulo_nav:  # o mapa é navegação: links de verdade, não uma imagem
            return f'<nav class="lv-diagrama lv-mapa" aria-label="{_esc(self.rotulo_nav)}">\n{corpo}\n</nav>'
        return f'<figure class="lv-diagrama">\n{corpo}\n</figure>'

    def __str__(self):
        return self._repr_html_()


# Cores de reserva para quando diagramas.css não está na página (notebook): as variáveis do
# JupyterLab, senão as cores do tema claro do livro. Especificidade zero: no livro, perdem sempre.
_TEXTO, _APAGADO = "var(--jp-content-font-color1, #222832)", "var(--jp-content-font-color2, #48566b)"
_FUNDO, _BORDA = "var(--jp-layout-color2, #f3f4f5)", "var(--jp-border-color1, #d1d5da)"
_DESTAQUE = "var(--jp-brand-color1, #0a7d91)"
_RESERVA = ("<style>"
            ":where(.lv-estreito){display:none}"
            ":where(.lv-svg){font-family:sans-serif;max-width:100%;height:auto}"
            f":where(.lv-texto,.lv-numero,.lv-cabecalho,.lv-op-texto){{fill:{_TEXTO};font-size:13px}}"
            f":where(.lv-forma){{fill:{_APAGADO};font-size:11.5px}}"
            f":where(.lv-caixa,.lv-circulo,.lv-soma,.lv-op){{fill:{_FUNDO};stroke:{_BORDA}}}"
            f":where(.lv-linha,.lv-trilho){{fill:none;stroke:{_APAGADO}}}:where(.lv-ponta){{fill:{_APAGADO}}}"
            f":where(.lv-fluxo){{fill:none;stroke:{_DESTAQUE};stroke-width:4}}"
            f":where(.lv-circulo.lv-atual){{fill:{_DESTAQUE}}}:where(.lv-atual-texto){{fill:#fff}}"
            "</style>")


def _esc(s):
    return html.escape(str(s), quote=True)


def _n(v):
    """Coordenada curta no SVG: 12.0 -> 12, 12.25 -> 12.2."""
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _largura(texto, fonte=FONTE):
    """Largura estimada (por cima) de um texto."""
    return len(texto) * EM_POR_CARACTERE * fonte


def _subscritos(s):
    """O texto escapado, com o índice de W_U e d_ff (letra, _, letras ou algarismos) desenhado
    embaixo, como nas fórmulas, em vez do _ cru."""
    return re.sub(r"(?<=[A-Za-z])_([A-Za-z0-9]+)",
                  r'<tspan baseline-shift="sub" font-size="0.75em">\1</tspan>', _esc(s))


def _texto(x, y, s, classe="lv-texto", ancora="middle", extra=""):
    """Um texto centrado na vertical em y."""
    return (f'<text class="{classe}" x="{_n(x)}" y="{_n(y)}" dy="0.35em" text-anchor="{ancora}"'
            f'{extra}>{_subscritos(s)}</text>')


def _caixa(x, y, w, h, classe="lv-caixa", r=6):
    return f'<rect class="{classe}" x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="{r}"/>'


def _linha(pontos, classe="lv-linha"):
    return f'<polyline class="{classe}" points="{" ".join(f"{_n(x)},{_n(y)}" for x, y in pontos)}"/>'


def _ponta(x, y, direcao, classe="lv-ponta", t=6):
    """Ponta de seta com o bico em (x, y), apontando para 'baixo', 'direita' ou 'esquerda'."""
    dx, dy = {"baixo": (0, 1), "direita": (1, 0), "esquerda": (-1, 0)}[direcao]
    # base da ponta: recua t na direção da seta e abre t/2 para cada lado
    bx, by = x - dx * t, y - dy * t
    px, py = -dy * t / 2, dx * t / 2
    pts = [(x, y), (bx + px, by + py), (bx - px, by - py)]
    return f'<polygon class="{classe}" points="{" ".join(f"{_n(a)},{_n(c)}" for a, c in pts)}"/>'


def _seta(pontos, classe="lv-linha"):
    """Linha com ponta no último ponto (segmentos horizontais ou verticais)."""
    (x0, y0), (x1, y1) = pontos[-2], pontos[-1]
    direcao = "baixo" if y1 > y0 else ("direita" if x1 > x0 else "esquerda")
    return _linha(pontos, classe) + _ponta(x1, y1, direcao)


def _svg(largura, altura, corpo, titulo, alt, classe="", role="img"):
    """O SVG inteiro: viewBox, tamanho natural (encolhe pelo CSS), título, descrição e rótulo."""
    largura, altura = math.ceil(largura), math.ceil(altura)
    classes = f"lv-svg {classe}".strip()
    return (f'<svg class="{classes}" xmlns="http://www.w3.org/2000/svg" '
            f'viewBox="0 0 {largura} {altura}" width="{largura}" height="{altura}" '
            f'role="{role}" aria-label="{_esc(alt)}">\n'
            f"<title>{_esc(titulo)}</title>\n<desc>{_esc(alt)}</desc>\n"
            + "\n".join(corpo) + "\n</svg>")


def _falado(s):
    """Texto alternativo: '␣telhado' se lê "telhado, com o espaço na frente"."""
    if s.startswith(b.ESPACO):
        return f"{s[len(b.ESPACO):]}, com o espaço na frente"
    return s


def _forma(*dims):
    """(5, 4) -> '5 × 4'; inteiros com ponto de milhar (50.257); letras ficam como estão."""
    return " × ".join(inteiro(x) if isinstance(x, int) else str(x) for x in dims)


# ---------------------------------------------------------------------------
# O que cada passo recebe e entrega (formas do brinquedo e do GPT-2 small)
# ---------------------------------------------------------------------------
def _proximo_token():
    """O token que o brinquedo escolhe depois do prompt (o mais provável da última linha)."""
    p = b.modelo(b.IDS_PROMPT)["p"][-1]
    return b.VOCAB[b.ranking(p, 1)[0]]


_SUBSCRITO = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _entradas_saidas():
    """Para cada passo: (recebe, entrega) no brinquedo e (recebe, entrega) no GPT-2 small."""
    n, d, V = len(b.IDS_PROMPT), b.d, b.V
    g = arq.GPT2_SMALL
    nd, gnd = _forma(n, d), _forma("n", g["d"])
    return [
        ((f"o texto “{b.PROMPT}”", f"ids ({n})"), ("o texto", "ids (n)")),
        ((f"ids ({n})", f"X ({nd})"), ("ids (n)", f"X ({gnd})")),
        ((f"X ({nd})", f"Q, K, V ({nd} cada)"), (f"X ({gnd})", f"Q, K, V ({gnd} cada)")),
        ((f"Q, K, V ({nd} cada)", f"a ({nd})"), (f"Q, K, V ({gnd} cada)", f"a ({gnd})")),
        ((f"X e a ({nd})", f"y ({nd})"), (f"X e a ({gnd})", f"y ({gnd})")),
        ((f"y ({nd})", f"z e p ({_forma(n, V)})"), (f"y ({gnd})", f"z e p ({_forma('n', g['V'])})")),
        ((f"z{str(n).translate(_SUBSCRITO)} ({V})", "1 id, o próximo token"),
         (f"a última linha de z ({inteiro(g['V'])})", "1 id")),
    ]


# ---------------------------------------------------------------------------
# 1. Você está aqui: o mapa dos sete passos
# ---------------------------------------------------------------------------
NOMES_EM_DUAS_LINHAS = {"Máscaras e cabeças": ("Máscaras e", "cabeças"),
                        "O próximo token": ("O próximo", "token")}


def _textos_abaixo(k, largo):
    """As linhas sob os círculos: (texto, classe, fonte). O estreito põe o nome e quebra a linha."""
    (recebe, entrega), (g_recebe, g_entrega) = _entradas_saidas()[k - 1]
    gpt2 = (f"GPT-2 small: {g_recebe} → {g_entrega}", "lv-forma", FONTE_MENOR)
    if largo:
        return [(f"recebe {recebe} → entrega {entrega}", "lv-texto", FONTE), gpt2]
    return [(f"Passo {k} de {len(PASSOS)}: {PASSOS[k - 1]}", "lv-texto lv-forte", FONTE),
            (f"recebe {recebe}", "lv-texto", FONTE), (f"entrega {entrega}", "lv-texto", FONTE), gpt2]


def _mapa(k, largo):
    """Um SVG do mapa: largo (nomes sob os círculos) ou estreito (só números, o nome atual embaixo).

    A largura é a mesma nos sete passos (a maior que os textos pedem): o mapa não pula de
    tamanho de uma página para a outra.
    """
    total = len(PASSOS)
    r, topo = 14, 6
    if largo:
        linhas_nome = [NOMES_EM_DUAS_LINHAS.get(nome, (nome,)) for nome in PASSOS]
        vaga = max(_largura(t, FONTE) for ls in linhas_nome for t in ls) + 16
    else:
        vaga = 2 * r + 18
    abaixo = _textos_abaixo(k, largo)
    largura = max([total * vaga, 0 if largo else LARGURA_ESTREITA]
                  + [_largura(t, f) + 8 for j in range(1, total + 1) for t, _, f in _textos_abaixo(j, largo)])
    x0 = (largura - total * vaga) / 2 + vaga / 2
    cy = topo + r
    corpo = [_linha([(x0, cy), (x0 + (total - 1) * vaga, cy)], "lv-trilho")]
    y = cy + r + 8
    for i, nome in enumerate(PASSOS):
        cx, atual = x0 + i * vaga, i + 1 == k
        classe = "lv-circulo lv-atual" if atual else "lv-circulo"
        pedacos = [f'<circle class="{classe}" cx="{_n(cx)}" cy="{_n(cy)}" r="{r}"/>',
                   _texto(cx, cy, str(i + 1), "lv-numero lv-atual-texto" if atual else "lv-numero")]
        if largo:
            for j, t in enumerate(linhas_nome[i]):
                pedacos.append(_texto(cx, y + 8 + j * (FONTE + 3), t,
                                      "lv-texto lv-forte" if atual else "lv-texto"))
        else:  # só o número à vista: o <title> dá o nome do link (e aparece ao passar o mouse)
            pedacos.insert(0, f"<title>Passo {i + 1}: {_esc(nome)}</title>")
        # o nome do link é o texto à vista ("1 Tokens") ou o <title>: sem aria-label, que
        # esconderia o texto à vista (WCAG 2.5.3, rótulo no nome)
        marca = ' aria-current="page"' if atual else ""
        corpo.append(f'<a href="{PAGINAS[i]}.html"{marca}>' + "\n".join(pedacos) + "</a>")
    y += 8 + (2 * (FONTE + 3) + 10 if largo else 4)
    for j, (t, classe, _) in enumerate(abaixo):
        corpo.append(_texto(largura / 2, y + j * (FONTE + 6), t, classe))
    altura = y + (len(abaixo) - 1) * (FONTE + 6) + FONTE
    (recebe, entrega), (g_recebe, g_entrega) = _entradas_saidas()[k - 1]
    alt = (f"Mapa dos {total} passos; você está no passo {k} de {total}, {PASSOS[k - 1]}: "
           f"recebe {recebe} e entrega {entrega}. No GPT-2 small: recebe {g_recebe} e entrega {g_entrega}.")
    return _svg(largura, altura, corpo, f"Você está aqui: passo {k} de {total}, {PASSOS[k - 1]}", alt,
                "lv-largo" if largo else "lv-estreito", role="group"), alt


def voce_esta_aqui(k):
    """O mapa dos sete passos, com o passo k (1 a 7) destacado e as formas que ele recebe e entrega.

    É navegação: cada círculo leva à página do passo; o atual tem aria-current="page".
    Dois desenhos, um largo (com os nomes) e um estreito (para o celular); o CSS mostra um.
    """
    total = len(PASSOS)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= total:
        raise ValueError(f"O passo precisa ser um inteiro de 1 a {total}; recebi {k!r}.")
    largo, alt = _mapa(k, True)
    estreito, _ = _mapa(k, False)
    return Diagrama([largo, estreito], alt, rotulo_nav=f"Os {total} passos: você está no passo {k}")


# ---------------------------------------------------------------------------
# 2. O caminho inteiro
# ---------------------------------------------------------------------------
def _etapas_caminho():
    """Os dados do caminho e as operações entre eles, com as formas calculadas."""
    n, d, V = len(b.IDS_PROMPT), b.d, b.V
    g = arq.GPT2_SMALL
    L, gL = BLOCOS_BRINQUEDO, g["n_camadas"]
    dados = [  # (nome, brinquedo, GPT-2 small)
        ("texto", f"“{b.PROMPT}”", "texto"),
        ("tokens (ids)", _forma(n), "n"),
        ("X", _forma(n, d), _forma("n", g["d"])),
        ("y", _forma(n, d), _forma("n", g["d"])),
        ("z (logits)", _forma(n, V), _forma("n", g["V"])),
        ("p", _forma(V), _forma(g["V"])),
        ("próximo token", _proximo_token(), "1 id"),
    ]
    blocos = f"{L} bloco{'s' if L != 1 else ''}"
    operacoes = [  # (no desenho, no texto alternativo)
        ("tokenizar", "tokenizar"),
        ("embedding + posição: X = E[ids] + P", "embedding + posição"),
        (f"{blocos} (GPT-2: {gL} blocos), mesma forma", f"{blocos} (GPT-2: {gL} blocos)"),
        ("norma final + camada de saída: LN(y) W_U", "norma final e camada de saída"),
        ("softmax da última linha", "softmax da última linha"),
        ("o mais provável", "o mais provável"),
    ]
    return dados, operacoes


def caminho():
    """O caminho inteiro, de cima para baixo, com as formas do brinquedo e do GPT-2 small."""
    dados, ops = _etapas_caminho()
    operacoes = [o for o, _ in ops]
    f, fm = FONTE, FONTE_MENOR
    margem, folga = 6, 14
    w_no = max(_largura(nome, f) for nome, _, _ in dados) + 2 * folga
    w_toy = max(_largura(t, fm) for t in ["brinquedo"] + [t for _, t, _ in dados]) + folga
    w_gpt = max(_largura(t, fm) for t in ["GPT-2 small"] + [t for _, _, t in dados]) + folga
    x_no, x_toy = margem, margem + w_no + folga
    x_gpt = x_toy + w_toy
    eixo = x_no + w_no / 2
    w_op = [_largura(t, fm) + 2 * 8 for t in operacoes]
    largura = max(x_gpt + w_gpt, max(eixo + 10 + w for w in w_op)) + margem
    h_no, h_vao, topo = 28, 32, 30
    corpo = [_texto(x_toy + w_toy / 2, topo / 2, "brinquedo", "lv-cabecalho"),
             _texto(x_gpt + w_gpt / 2, topo / 2, "GPT-2 small", "lv-cabecalho")]
    for i, (nome, toy, gpt) in enumerate(dados):
        y = topo + i * (h_no + h_vao)
        meio = y + h_no / 2
        ponta = i in (0, len(dados) - 1)
        corpo += [_caixa(x_no, y, w_no, h_no, "lv-caixa lv-ponta-caminho" if ponta else "lv-caixa"),
                  _texto(eixo, meio, nome, "lv-texto lv-forte"),
                  _texto(x_toy + w_toy / 2, meio, toy, "lv-texto"),
                  _texto(x_gpt + w_gpt / 2, meio, gpt, "lv-forma")]
        if i < len(operacoes):
            y1, y2 = y + h_no, y + h_no + h_vao
            corpo.append(_seta([(eixo, y1), (eixo, y2 - 1)]))
            corpo += [_caixa(eixo + 10, (y1 + y2) / 2 - 10, w_op[i], 20, "lv-op", r=10),
                      _texto(eixo + 10 + 8, (y1 + y2) / 2, operacoes[i], "lv-op-texto", "start")]
    altura = topo + len(dados) * h_no + (len(dados) - 1) * h_vao + margem
    passos = "; ".join(f"{ops[i - 1][1]}: {nome}, {_falado(toy)} (GPT-2: {gpt})"
                       for i, (nome, toy, gpt) in enumerate(dados) if i)
    alt = ("O caminho do texto ao próximo token, de cima para baixo, com as formas do brinquedo "
           f"e do GPT-2 small. Entra o texto {dados[0][1]}; {passos}.")
    return Diagrama(_svg(largura, altura, corpo, "O caminho inteiro, do texto ao próximo token", alt), alt)


# ---------------------------------------------------------------------------
# 3. O bloco pré-LN
# ---------------------------------------------------------------------------
def bloco():
    """O bloco pré-LN: o fluxo residual desce de x a y; cada subcamada lê LN(·) e soma (⊕) a sua correção."""
    n, d, d_ff = len(b.IDS_PROMPT), b.d, b.d_ff
    g = arq.GPT2_SMALL
    nd = _forma(n, d)
    fm = FONTE_MENOR
    sx, topo = 44, 8                       # o fluxo residual: a linha vertical em x = sx
    x_ln, w_ln, h_caixa = sx + 34, 40, 40
    x_sub = x_ln + w_ln + 26               # a subcamada (atenção ou MLP)
    ramos = [  # (y do ramo, leitura, nome, 2ª linha, correção, soma)
        ("u", "atenção", f"{b.n_cabecas} cabeças", "a", "h = x + a"),
        ("u'", "MLP", f"oculta: {_forma(n, d_ff)}", "m", "y = h + m"),
    ]
    w_sub = max(_largura(t, fm) for r in ramos for t in r[1:3]) + 24
    x_volta = x_sub + w_sub + 18           # por onde a correção volta ao fluxo
    notas = ["pré-LN: a LN fica no ramo, antes da subcamada;",
             "o fluxo residual vai de x a y sem norma.",
             f"GPT-2 small: d = {inteiro(g['d'])}, d_ff = {inteiro(g['d_ff'])},",
             f"{g['n_cabecas']} cabeças, {g['n_camadas']} blocos iguais a este."]
    largura = max(x_volta + 6 + _largura(f"{ramos[0][3]}: {nd}", fm),
                  8 + max(_largura(t, fm) for t in notas)) + 8
    corpo = [_texto(sx, topo + 8, "x", "lv-texto lv-forte"),
             _texto(sx + 14, topo + 8, f"entra: {nd} (n × d)", "lv-forma", "start")]
    y = topo + 26
    inicio_fluxo = y
    for leitura, nome, linha2, corr, soma in ramos:
        yr = y + 30                        # altura do ramo
        ys = yr + 62                       # altura da soma ⊕
        corpo += [
            _seta([(sx, yr), (x_ln - 1, yr)]),
            _caixa(x_ln, yr - 14, w_ln, 28, "lv-caixa lv-ln"),
            _texto(x_ln + w_ln / 2, yr, "LN", "lv-texto lv-forte"),
            _seta([(x_ln + w_ln, yr), (x_sub - 1, yr)]),
            _texto((x_ln + w_ln + x_sub) / 2, yr - 10, leitura, "lv-forma"),
            _caixa(x_sub, yr - h_caixa / 2, w_sub, h_caixa, "lv-caixa lv-sub"),
            _texto(x_sub + w_sub / 2, yr - 8, nome, "lv-texto lv-forte"),
            _texto(x_sub + w_sub / 2, yr + 9, linha2, "lv-forma"),
            _seta([(x_sub + w_sub, yr), (x_volta, yr), (x_volta, ys), (sx + 11, ys)]),
            _texto(x_volta + 6, (yr + ys) / 2, f"{corr}: {nd}", "lv-forma", "start"),
            f'<circle class="lv-soma" cx="{sx}" cy="{_n(ys)}" r="10"/>',
            _texto(sx, ys, "+", "lv-texto lv-forte"),
            _texto(sx + 16, ys + 22, f"{soma}: {nd}", "lv-texto", "start"),
        ]
        y = ys + 22
    fim_fluxo = y + 22
    corpo.insert(0, _seta([(sx, inicio_fluxo - 6), (sx, fim_fluxo)], "lv-fluxo"))
    meio = (inicio_fluxo + fim_fluxo) / 2
    corpo.append(_texto(sx - 20, meio, "fluxo residual", "lv-forma", "middle",
                        f' transform="rotate(-90 {sx - 20} {_n(meio)})"'))
    corpo.append(_texto(sx, fim_fluxo + 12, "y", "lv-texto lv-forte"))
    corpo.append(_texto(sx + 14, fim_fluxo + 12, f"sai: {nd}, a forma de x", "lv-forma", "start"))
    y = fim_fluxo + 40
    for j, t in enumerate(notas):
        corpo.append(_texto(8, y + j * (fm + 6), t, "lv-forma lv-nota", "start"))
    altura = y + (len(notas) - 1) * (fm + 6) + fm
    alt = (f"O bloco pré-LN, de cima para baixo. O fluxo residual x ({nd}) desce numa linha até y. "
           f"No primeiro ramo, LN(x) = u entra na atenção ({b.n_cabecas} cabeças), e a correção a "
           f"({nd}) volta e é somada: h = x + a. No segundo ramo, LN(h) = u' entra no MLP "
           f"(camada oculta {_forma(n, d_ff)}), e a correção m ({nd}) é somada: y = h + m, {nd}, "
           f"a forma de x. A LN fica só nos ramos, antes de cada subcamada. "
           f"No GPT-2 small, d = {inteiro(g['d'])} e d_ff = {inteiro(g['d_ff'])}.")
    return Diagrama(_svg(largura, altura, corpo, "O bloco pré-LN", alt), alt)


# ---------------------------------------------------------------------------
# 4. O caminho de uma consulta: a linha do último token numa cabeça
# ---------------------------------------------------------------------------
def _subscrito(k):
    return str(k).translate(_SUBSCRITO)


def _numeros_da_consulta(c):
    """Os números da última linha na cabeça c (0 ou 1): q, q·k, s, pesos, valores e a saída."""
    from livro.formato import num, vetor

    at = b.atencao(b.LN(b.embed(b.IDS_PROMPT)))
    n = len(b.IDS_PROMPT)
    q = b.cabeca(at["Q"], c)[n - 1]
    K, V = b.cabeca(at["K"], c), b.cabeca(at["V"], c)
    qk = [sum(a * k for a, k in zip(q, K[j])) for j in range(n)]      # sem dividir
    s, w, o = at["S"][c][n - 1], at["A"][c][n - 1], at["O"][c][n - 1]
    toks = [b.VOCAB[i] for i in b.IDS_PROMPT]
    linhas = [(toks[j], num(qk[j]), num(s[j]), num(w[j]), vetor(V[j])) for j in range(n)]
    return {"q": vetor(q), "linhas": linhas, "o": vetor(o), "toks": toks,
            "maior": max(range(n), key=lambda j: w[j])}


def consulta(c=0):
    """Uma consulta, do produto escalar à média: a linha do último token na cabeça c (0 ou 1).

    Uma linha por token visível: q·kⱼ, o escore sⱼ = q·kⱼ/√d_h, o peso wⱼ (softmax) e o valor vⱼ;
    embaixo, a saída oⱼ = Σ wⱼ vⱼ. Todo número vem de `brinquedo.atencao`. Cabe em 358 px.
    """
    if c not in range(b.n_cabecas):
        raise ValueError(f"A cabeça precisa ser um inteiro de 0 a {b.n_cabecas - 1}; recebi {c!r}.")
    dados = _numeros_da_consulta(c)
    n, h = len(dados["linhas"]), c + 1
    f, fm, margem, vao = FONTE, FONTE_MENOR, 6, 14
    raiz = f"√{b.d_h}"
    cabecalho = [("token", "j"), ("q · kⱼ", ""), (f"÷ {raiz}", "sⱼ"), ("softmax", "wⱼ"), ("valor", "vⱼ")]
    colunas = list(zip(*dados["linhas"]))
    larguras = [max([_largura(t, fm) for t in cab if t] + [_largura(x, fm) for x in col])
                for cab, col in zip(cabecalho, colunas)]
    ultimo = dados["toks"][-1]
    topo_txt = f"consulta de {ultimo}, cabeça {h}: q = {dados['q']}"
    saida_txt = f"o{_subscrito(n)} = Σ wⱼ vⱼ = {dados['o']}"
    largura = max(sum(larguras) + vao * (len(larguras) - 1), _largura(topo_txt, fm),
                  _largura(saida_txt, f) + 16) + 2 * margem
    xs, x = [], margem
    for w in larguras:
        xs.append(x + w / 2)
        x += w + vao
    corpo = [_texto(margem, 10, topo_txt, "lv-forma", "start")]
    y_cab = 32
    for (l1, l2), cx in zip(cabecalho, xs):
        corpo.append(_texto(cx, y_cab, l1, "lv-forma"))
        if l2:
            corpo.append(_texto(cx, y_cab + fm + 3, l2, "lv-forma"))
    for i in (1, 2):                                 # as setas: q·k → ÷ √d_h → softmax
        xa = xs[i] + larguras[i] / 2 + 2
        corpo.append(_seta([(xa, y_cab + fm + 10), (xa + vao - 4, y_cab + fm + 10)]))
    y0, passo = y_cab + 2 * fm + 16, f + 8
    for j, linha in enumerate(dados["linhas"]):
        yj = y0 + j * passo
        classe = "lv-texto lv-forte" if j == dados["maior"] else "lv-texto"
        for k, (t, cx) in enumerate(zip(linha, xs)):
            corpo.append(_texto(cx, yj, t, classe if k in (0, 3) else "lv-forma"))
    y_fim = y0 + (n - 1) * passo + 10
    y_caixa = y_fim + 24
    meio = largura / 2
    corpo.append(_seta([(meio, y_fim), (meio, y_caixa - 1)]))
    w_caixa = _largura(saida_txt, f) + 16
    corpo += [_caixa(meio - w_caixa / 2, y_caixa, w_caixa, 28, "lv-caixa lv-ponta-caminho"),
              _texto(meio, y_caixa + 14, saida_txt, "lv-texto lv-forte")]
    altura = y_caixa + 28 + margem
    passos = "; ".join(f"{_falado(t)}: q·k {qk}, escore {s}, peso {w}, valor {v}"
                       for t, qk, s, w, v in dados["linhas"])
    alt = (f"O caminho da consulta de {_falado(ultimo)}, o último token, na cabeça {h}. "
           f"A consulta q = {dados['q']} faz o produto escalar com a chave de cada token; "
           f"cada produto é dividido por {raiz} e vira um escore; o softmax transforma os escores "
           f"em pesos que somam 1; a saída é a soma dos valores, cada um multiplicado pelo seu peso. "
           f"{passos}. Saída: {dados['o']}.")
    return Diagrama(_svg(largura, altura, corpo, f"O caminho de uma consulta: {ultimo}, cabeça {h}", alt), alt)
