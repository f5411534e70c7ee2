"""Todo campo de todo widget recebe valores hostis pela porta do navegador (responder).

Para cada widget, cada campo e cada ação: o valor vai sozinho num pedido. A resposta
tem de ser uma mensagem em português ou um HTML válido, e nunca:
- a mensagem genérica ("O widget não conseguiu calcular…"): toda entrada ruim tem a sua;
- o nome de uma exceção Python ou um traceback;
- marcação vinda da entrada sem escape;
- lixo de ponto flutuante (nan, inf, dezenas de dígitos);
- "1 tokens" (contagens com o substantivo errado);
- uma saída gigante (a frase muito longa é cortada com aviso).
"""
import itertools
import json
import re
from html.parser import HTMLParser

import pytest

from livro.widgets import api as w
MARCACAO = '"><img src=x onerror=alert(1)><b>negrito</b>'
HOSTIS = [
    "1e308", "-1e308", "1e300", "-1e30", "1e30", "1e-300", "-1e-300", "1e-12", "0", "-0", "0,0000001",
    "NaN", "nan", "inf", "-inf", "Infinity", "", "   ", "1,5,5", "1.5", "−2", "0x10", "1_000",
    MARCACAO, "<script>alert(1)</script>", "ünïcødé ∑ 😀", "\u202e\u0000", "x" * 5000, "9" * 400,
    "<|endoftext|>", "o gato " * 400, "o gato subiu no" + " muro e gato" * 300, True, False, None, 1e308, -1e308, 0, 7, 2.5,
]
# Com um botão (ação), os campos são lidos pelo mesmo código: basta um de cada tipo de valor ruim.
HOSTIS_COM_ACAO = ["1e308", "-1e30", "1e-300", "0", "NaN", "inf", "", "1,5,5", "−2", MARCACAO, "x" * 5000,
                   "<|endoftext|>", "o gato " * 400, True, None, 1e308, 7, 2.5]
EXCECAO = re.compile(r"Traceback|\b[A-Z][A-Za-z]*(Error|Exception|Warning)\b|File \"")
LIXO = re.compile(r"\bnan\b|\binf\b|\d[\d.]{24,}|\d,\d{7,}", re.IGNORECASE)
CONTAGEM_ERRADA = re.compile(r"(?<![\d.,])1 (tokens|posições|linhas|parâmetros)\b")
GENERICA = "O widget não conseguiu calcular"
# "em" + artigo sem contração ("Em a temperatura T", "em o top-k"), e o mesmo com "de".
SEM_CONTRACAO = re.compile(r"\b(em|de) (o|a|os|as)\b", re.IGNORECASE)


def _acoes(nome):
    html = w.widget_html(nome, "teste")
    return [None] + sorted(set(re.findall(r'data-acao="([^"]+)"', html)) - {"linha"}) + ["linha"]


def _casos():
    for nome in w.WIDGETS:
        padrao = w.funcoes(nome)[0]()
        for campo in padrao:
            for valor in HOSTIS:
                yield nome, campo, valor


def _confere(r, pedido):
    desc = json.dumps(pedido, ensure_ascii=False)[:200]
    assert set(r) in ({"erro"}, {"html", "campos", "desligar"}, {"html", "campos", "desligar", "rotulos"}), desc
    if "erro" in r:
        msg = r["erro"]
        assert isinstance(msg, str) and msg.strip(), desc
        assert GENERICA not in msg, f"{desc}: a mensagem genérica no lugar de uma que diga o que houve"
        assert not SEM_CONTRACAO.search(msg), f"{desc}: {msg}"
        assert not EXCECAO.search(msg), f"{desc}: {msg}"
        assert len(msg) < 800, f"{desc}: mensagem enorme ({len(msg)})"
        return
    html = r["html"]
    assert not EXCECAO.search(html), desc
    for perigo in ("<img", "<script", "<b>negrito"):
        assert perigo not in html, f"{desc}: {perigo} sem escape"
    texto = re.sub(r"<[^>]+>", " ", html)
    assert not LIXO.search(texto), f"{desc}: {LIXO.search(texto).group(0)}"
    assert not CONTAGEM_ERRADA.search(texto), f"{desc}: {CONTAGEM_ERRADA.search(texto).group(0)}"
    assert len(html) < 60_000, f"{desc}: HTML de {len(html)} caracteres"
    json.dumps(r, ensure_ascii=False, allow_nan=False)  # o worker manda JSON estrito


@pytest.mark.parametrize("nome", list(w.WIDGETS))
def test_cada_campo_e_cada_acao_com_valores_hostis(nome):
    padrao = w.funcoes(nome)[0]()
    for acao in _acoes(nome):
        for campo in padrao:
            for valor in (HOSTIS if acao is None else HOSTIS_COM_ACAO):
                pedido = {"widget": nome, "campos": {campo: valor}, "acao": acao, "inst": "teste"}
                _confere(w.responder(pedido), pedido)


@pytest.mark.parametrize("pedido", [
    None, [], "tokens", {}, {"widget": None}, {"widget": "<b>x</b>"}, {"widget": "tokens", "campos": []},
    {"widget": "tokens", "campos": {"texto": ["a"]}}, {"widget": "tokens", "campos": {"texto": {"a": 1}}},
    {"widget": "tokens", "acao": 3}, {"widget": "bloco", "acao": "caso:<b>x</b>"},
    {"widget": "proximo", "acao": "preset:nada"}, {"widget": "config-bloco", "acao": "preset:1999"},
])
def test_pedidos_malformados(pedido):
    _confere(w.responder(pedido), pedido)


def test_json_ilegivel():
    r = json.loads(w.responder_json("{não é json"))
    assert r == {"erro": "Pedido ilegível."}


def test_escape_em_conteudo_e_atributo():
    from livro.widgets.html import escapa
    assert escapa(MARCACAO) == "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;b&gt;negrito&lt;/b&gt;"
    assert escapa("a'b&c") == "a&#x27;b&amp;c"


@pytest.mark.parametrize("logC,logN", [("20", "13"), ("26", "8"), ("20", "8"), ("26", "13")])
def test_compute_nos_extremos_das_faixas(logC, logN):
    r = w.responder({"widget": "compute", "campos": {"logC": logC, "logN": logN, "inferencia": True}})
    texto = re.sub(r"<[^>]+>", " ", r["html"])
    assert not re.search(r"(?<![\d,])0 tokens por parâmetro", texto), texto
    assert "((" not in texto and "))" not in texto, texto
    _confere(r, logC)


# ---------------------------------------------------------------------------
# O que os próprios controles do widget produzem tem resposta de verdade (nunca uma mensagem)
# ---------------------------------------------------------------------------
class _Controles(HTMLParser):
    """Os controles de um formulário de widget: listas, rádios, marcas, faixas e botões."""

    def __init__(self, html):
        super().__init__()
        self.listas, self.acao_lista, self.radios = {}, {}, {}
        self.marcas, self.faixas, self.acoes = [], [], []
        self._lista = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "select":
            self._lista = a["name"]
            self.listas[self._lista] = []
            self.acao_lista[self._lista] = a.get("data-acao")
        elif tag == "option" and self._lista:
            self.listas[self._lista].append(a["value"])
        elif tag == "input" and a.get("type") == "radio":
            self.radios.setdefault(a["name"], []).append(a["value"])
        elif tag == "input" and a.get("type") == "checkbox":
            self.marcas.append(a["name"])
        elif tag == "input" and a.get("type") == "range":
            self.faixas.append(a)
        elif tag == "button" and "data-acao" in a:
            self.acoes.append(a["data-acao"])

    def handle_endtag(self, tag):
        if tag == "select":
            self._lista = None


def _texto_faixa(v):
    """O valor de um <input type=range> como o navegador o dá: "0.3", "23.5", "3"."""
    s = repr(round(v, 10))
    return s[:-2] if s.endswith(".0") else s


def _valores_faixa(a):
    lo, hi, passo = float(a["min"]), float(a["max"]), float(a["step"])
    n = round((hi - lo) / passo)
    return [_texto_faixa(lo + i * passo) for i in range(n + 1)]


def _campos_faixa(a, v):
    """O que o widgets.js manda: uma faixa com data-espelho escreve no campo espelho (com vírgula)."""
    if a.get("data-espelho"):
        return {a["data-espelho"]: v.replace(".", ",")}
    return {a["name"]: v}


def _pedidos_dos_controles(nome):
    """Todo pedido que os controles sozinhos produzem a partir do estado inicial."""
    ctl = _Controles(w.widget_html(nome, "controles"))
    pedidos = [{}]
    for campo, valores in ctl.listas.items():
        pedidos += [{"campos": {campo: v}, "acao": ctl.acao_lista[campo]} for v in valores]
    for campo, valores in ctl.radios.items():
        pedidos += [{"campos": {campo: v}} for v in valores]
    for campo in ctl.marcas:
        pedidos += [{"campos": {campo: ligado}} for ligado in (True, False)]
    for a in ctl.faixas:
        pedidos += [{"campos": _campos_faixa(a, v)} for v in _valores_faixa(a)]
    pedidos += [{"acao": acao} for acao in ctl.acoes]
    # Todas as combinações das escolhas discretas (e das pontas das faixas) juntas.
    discretos = ([[(c, v) for v in vs] for c, vs in ctl.listas.items() if not ctl.acao_lista[c]]
                 + [[(c, v) for v in vs] for c, vs in ctl.radios.items()]
                 + [[(c, True), (c, False)] for c in ctl.marcas])
    pontas = [[_campos_faixa(a, v) for v in (_valores_faixa(a)[0], _valores_faixa(a)[-1])] for a in ctl.faixas]
    for combo in itertools.product(*discretos):
        for ps in itertools.product(*pontas):
            campos = dict(combo)
            for p_ in ps:
                campos.update(p_)
            pedidos.append({"campos": campos})
    return ctl, pedidos


def _real(r, pedido):
    desc = json.dumps(pedido, ensure_ascii=False)[:200]
    assert "erro" not in r, f"{desc}: {r.get('erro')}"
    assert r["html"].strip(), desc
    _confere(r, pedido)


@pytest.mark.parametrize("nome", list(w.WIDGETS))
def test_todo_valor_dos_controles_da_uma_resposta_de_verdade(nome):
    """Cada opção de cada lista e rádio, as duas marcas, cada passo de cada faixa, cada botão e as
    combinações: uma resposta calculada, nunca uma mensagem de erro (nem a genérica)."""
    ctl, pedidos = _pedidos_dos_controles(nome)
    assert len(pedidos) > 1, f"{nome}: nenhum controle achado"
    for p_ in pedidos:
        pedido = {"widget": nome, "inst": f"controles-{nome}", **p_}
        _real(w.responder(pedido), pedido)
    # Dois botões seguidos (o segundo a partir do estado que o primeiro deixou), e o segundo
    # repetido até o widget desligá-lo ou nada mais mudar (anexar até o fim da geração,
    # avançar até o fim do bloco).
    for i, a1 in enumerate([None] + ctl.acoes):
        inst = f"seq-{nome}-{i}"
        r1 = w.responder({"widget": nome, "acao": a1, "inst": inst})
        _real(r1, a1)
        for a2 in ctl.acoes:
            if a2 in r1["desligar"]:
                continue
            pedido = {"widget": nome, "campos": r1["campos"], "acao": a2, "inst": inst + "-" + a2}
            r2 = w.responder(pedido)
            _real(r2, pedido)
            for _ in range(10):   # até desligar o botão ou o estado parar de mudar
                if a2 in r2["desligar"]:
                    break
                pedido = {"widget": nome, "campos": r2["campos"], "acao": a2, "inst": inst + "-" + a2}
                r2, antes = w.responder(pedido), r2
                _real(r2, pedido)
                if r2 == antes:
                    break


def test_faixas_e_listas_achadas():
    """O leitor de controles acha o que os widgets têm (senão o teste acima não testa nada)."""
    ctl = _Controles(w.widget_html("embeddings", "x"))
    assert set(ctl.listas) == {"token", "posicao"} and len(ctl.listas["token"]) == 12
    ctl = _Controles(w.widget_html("compute", "x"))
    assert len(ctl.faixas) == 3
    assert _valores_faixa(ctl.faixas[0])[:2] == ["20", "20.5"] and _valores_faixa(ctl.faixas[0])[-1] == "26"
    # o passo 6 não tem temperatura (ela é do passo 7): nem faixa, nem campo T
    ctl = _Controles(w.widget_html("saida", "x"))
    assert ctl.faixas == [] and 'name="T"' not in w.widget_html("saida", "x")


# ---------------------------------------------------------------------------
# Mensagens: "na temperatura T", nunca "em a temperatura T"; cada campo diz o seu domínio
# ---------------------------------------------------------------------------
def test_contracao_em_todo_rotulo():
    from livro.widgets.campos import em
    assert em("a temperatura T") == "na temperatura T"
    assert em("o top-k", inicio=True) == "No top-k"
    assert em("os parâmetros N") == "nos parâmetros N"
    assert em("as linhas") == "nas linhas"
    assert em("x₁₂ (linha 1, coluna 2)", inicio=True) == "Em x₁₂ (linha 1, coluna 2)"
    assert em("outro rótulo") == "em outro rótulo"


@pytest.mark.parametrize("nome", list(w.WIDGETS))
def test_mensagens_de_todo_campo_contraidas(nome):
    """Todo campo, com os valores ruins que disparam cada mensagem de ler_num (vazio, letras, duas
    vírgulas, infinito, grande, booleano): nenhuma mensagem com "em o", "Em a", "de o"…"""
    vistos = 0
    for campo in w.funcoes(nome)[0]():
        for valor in ("", "abc", "1,5,5", "inf", "1e308", True, "99"):
            r = w.responder({"widget": nome, "campos": {campo: valor}})
            # a lista e a entrega dizem o problema do link na própria saída (um aviso, não um erro)
            msg = r.get("erro") or (re.sub("<[^>]+>", "", r["html"]) if "lx-lista-aviso" in r.get("html", "") else "")
            if msg:
                vistos += 1
                assert not SEM_CONTRACAO.search(msg), f"{nome}.{campo}={valor!r}: {msg}"
    if nome != "tokens":
        assert vistos, f"{nome}: nenhuma mensagem de erro vista"


@pytest.mark.parametrize("campo,valor,dominio", [
    ("T", "1e308", None), ("T", "inf", "maior que 0"), ("T", "-1e308", "maior que zero"),
    ("k", "1e9", "inteiro de 1 a 12"), ("k", "1e308", "inteiro de 1 a 12"), ("k", "0", "inteiro de 1 a 12"),
    ("top_p", "1e308", "entre 0 (exclusive) e 1"), ("top_p", "inf", "maior que 0 e no máximo 1"),
    ("u", "1e9", "[0, 1)"), ("u", "-inf", "de 0 (inclusive) a 1 (exclusive)"),
])
def test_proximo_fora_do_dominio_diz_o_dominio_do_campo(campo, valor, dominio):
    """T = 1e308 é uma temperatura (muito quente); top-k = 1e9 não é um top-k: a mensagem diz o
    domínio do próprio campo, nunca os ±1.000.000 dos campos de x."""
    r = w.responder({"widget": "proximo", "campos": {campo: valor}})
    if dominio is None:
        assert "erro" not in r, r
        return
    assert dominio in r["erro"], r["erro"]
    assert "1.000.000" not in r["erro"], r["erro"]


@pytest.mark.parametrize("nome,campo,valor,dominio", [
    ("embeddings", "token", "1e9", "inteiro de 0 a 11"),
    ("embeddings", "posicao", "1e308", "inteiro de 1 a 8"), ("mascaras", "cabeca", "1e9", "inteiro de 1 a 2"),
    ("compute", "logC", "1e308", "de 15 a 30"), ("compute", "logN", "99", "de 6 a 14"),
    ("qkv", "x1", "1e308", "entre −1.000.000 e 1.000.000"),
])
def test_outros_campos_dizem_o_seu_dominio(nome, campo, valor, dominio):
    r = w.responder({"widget": nome, "campos": {campo: valor}})
    assert dominio in r["erro"], r["erro"]


@pytest.mark.parametrize("campos,eco", [
    ({"T": "0,0001"}, "T = 10⁻⁴"), ({"top_p": "1e-9"}, "top-p = 10⁻⁹"), ({"u": "0,9999"}, "u = 0,9999"),
    ({"T": "1e308"}, "T = 10³⁰⁸"), ({"u": "0"}, "u = 0"), ({"top_p": "1"}, "top-p = 1"),
    ({"T": "0,7", "top_p": "0,9", "u": "0,5"}, "T = 0,7 · top-k desligado · top-p = 0,9 · u = 0,5"),
])
def test_proximo_ecoa_o_valor_valido_sem_arredondar_para_um_invalido(campos, eco):
    r = w.responder({"widget": "proximo", "campos": campos})
    config = re.search(r'<p class="lw-config">([^<]*)</p>', r["html"]).group(1)
    assert eco in config, config
    for errado in ("T = 0 ", "top-p = 0 ", "u = 1"):
        assert errado not in config + " ", config


def test_eco_nunca_vira_um_valor_recusado():
    """Valores válidos perto das bordas: o eco, lido de volta, continua válido e perto do valor."""
    from livro import brinquedo as b
    from livro.widgets.geracao import eco
    for x in (1e-300, 1e-9, 1e-4, 0.00049, 0.0015, 0.9994, 0.9999, 0.99999999, 1 - 1e-15):
        s = eco(x)
        m = re.fullmatch(r"(?:([\d.,]+) · )?10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", s)
        if m:
            e = int(m.group(2).translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
            v = float((m.group(1) or "1").replace(",", ".")) * 10.0 ** e
        else:
            v = float(s.replace(".", "").replace(",", "."))
        assert abs(v - x) <= 1e-2 * x, (x, s)
        b.valida_config(T=v, top_p=v, u=v)   # nenhum dos três recusa o eco


def test_compute_sem_contagens_gigantes_abreviadas():
    """Com C no máximo e N no mínimo, D passa de 10¹⁵: a forma científica, nunca "166.666,7T"."""
    r = w.responder({"widget": "compute", "campos": {"logC": "26", "logN": "8"}})
    texto = re.sub(r"<[^>]+>", " ", r["html"])
    assert not re.search(r"\d{1,3}(\.\d{3})+(,\d)?[TBM]\b", texto), texto
    assert re.search(r"D = C / 6N = \d,\d · 10¹⁷ tokens", texto), texto


@pytest.mark.parametrize("texto,valor", [("0,7", 0.7), ("0.7", 0.7), ("−2", -2.0), (" -1,5 ", -1.5), (7, 7.0),
                                         ("1e-3", 0.001)])
def test_ler_num_aceita_as_formas_de_um_numero(texto, valor):
    from livro.widgets.campos import ler_num
    assert ler_num(texto, "o campo") == valor


@pytest.mark.parametrize("texto,trecho", [("", "Preencha o campo"), ("1,5,5", "uma vírgula só"),
                                          ("1.000,5", "uma vírgula só"), ("1_000", "não é um número"),
                                          (True, "Valor inválido no campo"), ("inf", "número finito"),
                                          ("2e6", "entre −1.000.000 e 1.000.000")])
def test_ler_num_recusa_com_a_mensagem_certa(texto, trecho):
    from livro.widgets.campos import ErroEntrada, ler_num
    with pytest.raises(ErroEntrada, match=re.escape(trecho)):
        ler_num(texto, "o campo")


def test_ler_num_opcional_e_inteiro():
    from livro.widgets.campos import inteiro_se_der, ligado, ler_inteiro, ler_num
    assert ler_num("", "o campo", opcional=True) is None
    assert ler_inteiro("3", "o campo", 1, 3) == 3 and ler_inteiro("1", "o campo", 1, 3) == 1
    assert inteiro_se_der(2.0) == 2 and isinstance(inteiro_se_der(2.0), int) and inteiro_se_der(2.5) == 2.5
    assert [ligado(v) for v in (True, False, "on", "false", None, "sim")] == [True, False, True, False, False, True]
