"""A lista de um aluno (livro.exercicios.lista e os widgets lista, entrega e exercicio no modo lista):
a versão sai de (lista, matrícula, exercício), o link e o código de entrega pegam o que foi cortado ou
mexido, e numa lista não há resolução, troca de versão nem, com CONFERIR=nao, veredito."""
import base64
import json
import zlib

import pytest

from livro.exercicios import EXERCICIOS, versao
from livro.exercicios import lista as L
from livro.exercicios.confere import Invalida
from livro.widgets import api

IDS = ["tokens-1", "embeddings-1", "mascaras-2", "proximo_token-1", "escala-2"]


def test_a_versao_do_aluno_so_depende_da_lista_da_matricula_e_do_exercicio():
    s = L.semente("semana-4", "2023001")
    assert s == "lista:semana-4|aluno:2023001"
    # alunos diferentes, listas diferentes: outros números (quase sempre), e nunca a versão do livro
    for id_ in IDS:
        enunciados = {versao(id_, L.semente("semana-4", f"m{k}")).enunciado for k in range(12)}
        assert len(enunciados) >= 6, id_
        assert versao(id_).enunciado not in enunciados
    assert versao("mascaras-2", L.semente("semana-5", "2023001")).enunciado != versao("mascaras-2", s).enunciado


def test_o_rotulo_da_versao_e_curto_e_estavel():
    s = L.semente("semana-4", "A1")
    r = L.rotulo_versao("tokens-1", s)
    assert len(r) == 6 and r == L.rotulo_versao("tokens-1", s) and r != L.rotulo_versao("tokens-2", s)


@pytest.mark.parametrize("ruim", ["", "Semana 4", "semana/4", "<script>", "sem\u0301ana", "a" * 41])
def test_nome_de_lista_ruim(ruim):
    with pytest.raises(Invalida, match="nome da lista"):
        L.semente(ruim, "1")


@pytest.mark.parametrize("ruim", ["", "20 23", "joão", "<b>", "1|2", "x" * 31])
def test_matricula_ruim(ruim):
    with pytest.raises(Invalida, match="matrícula"):
        L.semente("semana-4", ruim)


def test_escolher_paginas_ids_e_pontos():
    assert L.escolher("") == [(i, 1) for i in EXERCICIOS]
    e = L.escolher("bloco-2:3, mascaras ,tokens-1")
    assert e == [("tokens-1", 1)] + [(i, 1) for i in EXERCICIOS if i.startswith("mascaras")] + [("bloco-2", 3)]
    assert L.escolher("saida:1.5")[0] == ("saida-1", 1.5)
    assert L.escolher("tokens-1,tokens") == [("tokens-1", 1), ("tokens-2", 1), ("tokens-3", 1)]
    with pytest.raises(Invalida, match="mascara.*não é uma página.*Páginas: tokens"):
        L.escolher("mascara")
    with pytest.raises(Invalida, match="«5» não é uma página"):  # a vírgula separa os itens
        L.escolher("bloco-2:1,5")
    for ruim in ["bloco-2:0", "bloco-2:abc", "bloco-2:1e308", "bloco-2:-1", "bloco-2:101"]:
        with pytest.raises(Invalida, match="pontos"):
            L.escolher(ruim)
    with pytest.raises(Invalida, match="ao menos um"):
        L.escolher(" , ")


def test_o_link_leva_o_aluno_e_pega_o_que_foi_mexido():
    url = L.link("https://x.github.io/livro/", "semana-4", "A1", IDS, False)
    assert url.startswith("https://x.github.io/livro/book/lista.html?lista=semana-4&m=A1&ex=")
    assert L.ler_link(url) == {"lista": "semana-4", "m": "A1", "ids": IDS, "conferir": False}
    consulta = url.split("?")[1]
    assert L.ler_link("?" + consulta.replace(",", "%2C"))["ids"] == IDS  # um cliente de e-mail que codifica a vírgula
    for mexido in [url.replace("m=A1", "m=B2"), url.replace("conferir=0", "conferir=1"), url[:-1],
                   url.replace("semana-4", "semana-5"), url.replace(",escala-2", ""), url.split("&c=")[0]]:
        with pytest.raises(Invalida, match="incompleto ou foi alterado"):
            L.ler_link(mexido)
    with pytest.raises(Invalida, match="use o link da sua lista"):
        L.ler_link("")
    ruim = L.parametros("semana-4", "A1", ["tokens-1", "nao-existe"], True)
    with pytest.raises(Invalida, match="não tem.*nao-existe"):
        L.ler_link("?" + "&".join(f"{k}={v}" for k, v in ruim.items()))


def _json(r):
    return json.dumps({"l": "semana-4", "m": "A1", "e": L.soma_dos_exercicios(IDS), "r": [r[i].strip() for i in IDS]},
                      ensure_ascii=False, separators=(",", ":")).encode()


def test_o_codigo_de_entrega_leva_as_respostas_como_digitadas():
    r = {"tokens-1": " 7 ", "embeddings-1": "[-0,5; 1,5; 2; 3]", "mascaras-2": "39,5%",
         "proximo_token-1": "␣telha\u0301do", "escala-2": "<script>alert(1)</script>"}
    c = L.codigo("semana-4", "A1", IDS, r)
    assert c.startswith(L.PREFIXO) and len(c) < 400
    d = L.ler_codigo(c, IDS)
    assert d == {"lista": "semana-4", "m": "A1", "soma": L.soma_dos_exercicios(IDS),
                 "respostas": {k: v.strip() for k, v in r.items()}}
    assert L.ler_codigo(c)["respostas"] == [r[i].strip() for i in IDS]
    # as quebras de linha e os espaços de um e-mail não atrapalham
    assert L.ler_codigo(c[:30] + "\n  " + c[30:60] + " " + c[60:], IDS) == d
    assert L.achar_codigos(f'"{c[:40]}\n{c[40:]}";x') == [c]
    assert L.ler_codigo(L.codigo("s", "1", ["tokens-1"], {}), ["tokens-1"])["respostas"] == {"tokens-1": ""}
    assert len(L.ler_codigo(L.codigo("s", "1", ["tokens-1"], {"tokens-1": "9" * 5000}))["respostas"][0]) == 200
    # o código de outra escolha de exercícios não se lê como desta
    with pytest.raises(Invalida, match="outros exercícios"):
        L.ler_codigo(c, IDS[:-1])
    with pytest.raises(Invalida, match="outros exercícios"):
        L.ler_codigo(c, list(reversed(IDS)))
    # o mesmo código em qualquer máquina: nada de compressão (o texto do JSON, com a soma)
    assert c == L.PREFIXO + base64.urlsafe_b64encode(zlib.crc32(_json(r)).to_bytes(4, "big") + _json(r)).decode().rstrip("=")


def test_o_codigo_cortado_ou_com_um_caractere_trocado_e_recusado():
    c = L.codigo("semana-4", "A1", IDS, {"tokens-1": "7", "mascaras-2": "0,25"})
    corpo = c[len(L.PREFIXO):]
    for k in range(1, len(corpo)):
        with pytest.raises(Invalida, match="incompleto"):
            L.ler_codigo(L.PREFIXO + corpo[:k])
    troca = {ch: ("B" if ch == "A" else "A") for ch in set(corpo)}
    for k in range(len(corpo)):
        with pytest.raises(Invalida, match="incompleto|caractere trocado"):
            L.ler_codigo(L.PREFIXO + corpo[:k] + troca[corpo[k]] + corpo[k + 1:])
    for ruim in ["", "oi professor", "LIVRO2:abc", L.PREFIXO, L.PREFIXO + "!!!", "1e308"]:
        with pytest.raises(Invalida):
            L.ler_codigo(ruim)


def _pedido(id_, campos, acao=None):
    return api.responder({"widget": f"exercicio:{id_}", "campos": campos, "acao": acao})


def test_o_exercicio_na_lista_sem_resolucao_nem_outra_versao():
    s = L.semente("semana-4", "A1")
    v = versao("mascaras-2", s)
    r = _pedido("mascaras-2", {"semente": s, "modo": "lista", "resposta": v.resposta_txt}, "conferir")
    assert 'data-veredito="certo"' in r["html"] and "lx-resolucao" not in r["html"]
    assert v.enunciado in r["html"] and set(r["desligar"]) == {"outra", "livro"}
    solto = _pedido("mascaras-2", {"semente": s, "modo": "lista", "resposta": "0,999"}, "conferir")["html"]
    assert 'data-veredito="errado"' in solto and "resolução" not in solto  # não há resolução para ver
    errado = _pedido("mascaras-2", {"semente": s, "modo": "lista", "resposta": v.texto(v.erros[0].valor)}, "conferir")
    assert v.erros[0].nome in errado["html"]
    oculto = _pedido("mascaras-2", {"semente": s, "modo": "lista-oculto", "resposta": v.resposta_txt}, "conferir")
    assert 'data-veredito="anotado"' in oculto["html"] and "Certo" not in oculto["html"]
    assert "lx-resolucao" not in oculto["html"]
    ilegivel = _pedido("mascaras-2", {"semente": s, "modo": "lista-oculto", "resposta": "abc"}, "conferir")
    assert 'data-veredito="invalido"' in ilegivel["html"]
    for acao in ("outra", "livro"):
        assert "não dá para trocar" in _pedido("mascaras-2", {"semente": s, "modo": "lista"}, acao)["erro"]


def test_a_semente_de_um_aluno_so_vale_no_modo_lista():
    s = L.semente("semana-4", "A1")
    assert "erro" in _pedido("mascaras-2", {"semente": s, "modo": ""})            # a resolução não aparece
    assert "estragada" in _pedido("mascaras-2", {"semente": "123", "modo": "lista"})["erro"]
    assert "estragada" in _pedido("mascaras-2", {"semente": s + "<b>", "modo": "lista"})["erro"]
    assert "Modo" in _pedido("mascaras-2", {"semente": s, "modo": "professor"})["erro"]


def test_os_widgets_lista_e_entrega():
    url = L.link("http://127.0.0.1:1", "semana-4", "A1", IDS, True)
    consulta = "?" + url.split("?")[1]
    r = api.responder({"widget": "lista", "campos": {"link": consulta}})
    assert r["html"].count("data-exercicio=") == len(IDS) and 'data-lx-chave="semana-4:A1"' in r["html"]
    assert r["html"].count('data-lx-modo="lista"') == len(IDS)
    assert "data-lx-lista-erro" in api.responder({"widget": "lista", "campos": {"link": consulta[:-1]}})["html"]
    oculta = "?" + L.link("http://127.0.0.1:1", "semana-4", "A1", IDS, False).split("?")[1]
    assert api.responder({"widget": "lista", "campos": {"link": oculta}})["html"].count('data-lx-modo="lista-oculto"') == len(IDS)
    respostas = json.dumps({"tokens-1": "7", "mascaras-2": "0,25"})
    g = api.responder({"widget": "entrega", "campos": {"link": consulta, "respostas": respostas}, "acao": "gerar"})
    c = g["html"].split("data-lx-codigo>")[1].split("<")[0]
    assert L.ler_codigo(c, IDS)["respostas"] == {i: {"tokens-1": "7", "mascaras-2": "0,25"}.get(i, "") for i in IDS}
    assert "Em branco:" in g["html"] and "Nada foi enviado" in g["html"]
    for lixo in ["[", "1e308", '"x"', '{"tokens-1": 5}']:  # o JSON escondido estragado: só respostas em branco
        h = api.responder({"widget": "entrega", "campos": {"link": consulta, "respostas": lixo}, "acao": "gerar"})["html"]
        assert set(L.ler_codigo(h.split("data-lx-codigo>")[1].split("<")[0])["respostas"]) == {""}
    assert "gerar" in api.responder({"widget": "entrega", "campos": {}})["desligar"]
