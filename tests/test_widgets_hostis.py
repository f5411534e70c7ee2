"""Todo campo de todo widget recebe valores hostis pela porta do navegador (responder).

Para cada widget, cada campo e cada ação: o valor vai sozinho num pedido. A resposta
tem de ser uma mensagem em português ou um HTML válido, e nunca:
- o nome de uma exceção Python ou um traceback;
- marcação vinda da entrada sem escape;
- lixo de ponto flutuante (nan, inf, dezenas de dígitos);
- "1 tokens" (contagens com o substantivo errado);
- uma saída gigante (a frase muito longa é cortada com aviso).
"""
import json
import re

import pytest

from livro.widgets import api as w
MARCACAO = '"><img src=x onerror=alert(1)><b>negrito</b>'
HOSTIS = [
    "1e308", "-1e308", "1e300", "-1e30", "1e30", "1e-300", "-1e-300", "1e-12", "0", "-0", "0,0000001",
    "NaN", "nan", "inf", "-inf", "Infinity", "", "   ", "1,5,5", "1.5", "−2", "0x10", "1_000",
    MARCACAO, "<script>alert(1)</script>", "ünïcødé ∑ 😀", "\u202e\u0000", "x" * 5000, "9" * 400,
    "<|endoftext|>", "o gato " * 400, "o gato subiu no" + " muro e gato" * 300, True, False, None, 1e308, -1e308, 0, 7, 2.5,
]
EXCECAO = re.compile(r"Traceback|\b[A-Z][A-Za-z]*(Error|Exception|Warning)\b|File \"")
LIXO = re.compile(r"\bnan\b|\binf\b|\d[\d.]{24,}|\d,\d{7,}", re.IGNORECASE)
CONTAGEM_ERRADA = re.compile(r"(?<![\d.,])1 (tokens|posições|linhas|parâmetros)\b")


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
            for valor in HOSTIS:
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
