"""Os exercícios conferidos (livro.exercicios e o widget exercicio:<id>).

Cada gabarito é aceito em toda forma que um estudante digitaria; cada erro típico é reconhecido
com a sua dica; entrada hostil recebe mensagem em português; "outra versão" dá, para muitas
sementes, uma versão com uma só resposta clara; a trava guarda o gabarito da versão do livro.
"""
import json
import re
from pathlib import Path

import pytest

from livro import brinquedo as b
from livro.exercicios import EXERCICIOS, PAGINAS, da_pagina, versao
from livro.exercicios.base import Sorteio, frase, na_borda
from livro.exercicios.confere import Invalida, conferir, ler_vetor, nfc, perto
from livro.widgets import api

RAIZ = Path(__file__).resolve().parents[1]
PASSOS = ["tokens", "embeddings", "qkv", "mascaras", "bloco", "saida", "proximo_token"]
SEMENTES = range(1, 121)


def formas(v):
    """As formas em que um estudante digitaria o gabarito."""
    t = v.resposta_txt
    out = {t, " " + t + " ", t.replace(",", ".") if v.tipo != "inteiro" else t.replace(".", "")}
    if v.tipo == "prob":
        out |= {t.replace(",", ".")}
        pct = f"{100 * v.resposta:.{max(v.casas - 2, 0) + 1}f}".replace(".", ",") + "%"
        out |= {pct, pct.replace("%", " %")}
    if v.tipo == "vetor":
        nums = t.strip("[]").split("; ")
        out |= {" ".join(nums), "(" + ", ".join(n.replace(",", ".") for n in nums) + ")", t.replace("; ", ";")}
    if v.tipo == "token":
        s = b.VOCAB[v.resposta]
        out |= {s.replace(b.ESPACO, ""), s.replace(b.ESPACO, " ").strip(), s.upper(),
                s.replace("á", "a\u0301").replace("ã", "a\u0303")}
    return out


def test_quantos_e_onde():
    assert len(EXERCICIOS) >= 25
    for p in PASSOS:
        assert len(da_pagina(p)) >= 3, p
    for p in ("por_que_bloco", "desde_2017", "escala", "laboratorio"):
        assert len(da_pagina(p)) >= 1, p
    assert len(da_pagina("treino")) >= 6          # a página do treino: três sobre a perda e o embedding, e entradas do gradiente na volta
    assert set(e.pagina for e in EXERCICIOS.values()) <= set(PAGINAS)
    assert 3 * sum(e.transferencia for e in EXERCICIOS.values()) >= len(EXERCICIOS)


@pytest.mark.parametrize("id_", list(EXERCICIOS))
def test_pagina_mostra_cada_exercicio(id_):
    texto = (RAIZ / "book" / f"{EXERCICIOS[id_].pagina}.md").read_text(encoding="utf-8")
    assert texto.count(f"```{{widget}} exercicio:{id_}\n") == 1


@pytest.mark.parametrize("id_", list(EXERCICIOS))
def test_gabarito_em_toda_forma(id_):
    v = versao(id_)
    for f in formas(v):
        assert conferir(v, f)[0] == "certo", (id_, f)


@pytest.mark.parametrize("id_", list(EXERCICIOS))
def test_erros_tipicos_reconhecidos(id_):
    v = versao(id_)
    assert v.erros, id_
    for e in v.erros:
        estado, achado, _, _ = conferir(v, v.texto(e.valor))
        assert estado == "errado" and achado is e, (id_, e.nome)
        r = api.responder({"widget": f"exercicio:{id_}", "campos": {"resposta": v.texto(e.valor)}, "acao": "conferir"})
        assert 'data-veredito="errado"' in r["html"] and e.nome in r["html"]


HOSTIS = ["abc", "", "   ", "1e308", "-1e999", "nan", "inf", "<script>alert(1)</script>", "0,5,5", "1;2;3", "x" * 5000,
          "a\u0301", "[1; 2", "12abc"]


@pytest.mark.parametrize("id_", list(EXERCICIOS))
def test_entrada_hostil(id_):
    for h in HOSTIS:
        r = api.responder({"widget": f"exercicio:{id_}", "campos": {"resposta": h}, "acao": "conferir"})
        assert "erro" not in r, (id_, h, r)
        m = re.search(r'data-veredito="(\w+)">(.*?)</p>', r["html"])
        assert m and m.group(1) in ("invalido", "errado"), (id_, h)
        assert "<script" not in r["html"]
        assert len(m.group(2)) < 600
        if m.group(1) == "invalido":  # português, sem o texto do Python
            assert not re.search(r"could not|invalid literal|Error|Traceback", m.group(2)), m.group(2)


@pytest.mark.parametrize("id_", list(EXERCICIOS))
def test_outras_versoes(id_):
    vistos = set()
    for sem in SEMENTES:
        v = versao(id_, sem)
        vistos.add(v.enunciado)
        assert v.erros, (id_, sem)
        assert not na_borda(v), (id_, sem)
        assert conferir(v, v.resposta_txt)[0] == "certo", (id_, sem)
        for e in v.erros:
            assert conferir(v, v.texto(e.valor))[1] is e, (id_, sem, e.nome)
            if v.tipo in ("numero", "prob", "vetor"):
                assert not perto(v, e.valor, v.resposta)
        assert versao(id_, sem).enunciado == v.enunciado
        assert v.enunciado != versao(id_).enunciado, (id_, sem)  # outra versão é outra de verdade
    assert len(vistos) >= 5, id_  # a variação muda os números de verdade


def test_frases_sorteadas_tem_sentido():
    """As outras versões falam de um gato que sobe em algum lugar, nunca de "o chão telhado telhado"."""
    lugar = "(?:muro|telhado|sofá|chão)"
    gramatica = re.compile(rf"o gato subiu(?: e subiu| no {lugar})?\.?|o gato subiu no {lugar} e(?: no)?")
    frases = {frase(Sorteio("frase", sem), minimo) for sem in range(300) for minimo in (3, 4)}
    assert len(frases) >= 15
    ruins = sorted(f for f in frases if not gramatica.fullmatch(f))
    assert not ruins, ruins


def test_sorteio_reprodutivel():
    a, c = Sorteio("x", 3), Sorteio("x", 3)
    assert [a.inteiro(0, 99) for _ in range(20)] == [c.inteiro(0, 99) for _ in range(20)]
    assert [Sorteio("x", 4).inteiro(0, 10 ** 6) for _ in range(3)] != [Sorteio("x", 3).inteiro(0, 10 ** 6)] * 3


def test_leitura():
    assert ler_vetor("[-0,5; 1,5]", 2) == [-0.5, 1.5]
    assert ler_vetor("-0.5, 1.5", 2) == [-0.5, 1.5]
    assert ler_vetor("(1 2)", 2) == [1.0, 2.0]
    assert ler_vetor("-0,5, 1,5", 2) == [-0.5, 1.5]
    assert ler_vetor("1,2,3,4", 4) == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(Invalida, match="ponto e vírgula"):
        ler_vetor("0,5,1,5", 2)
    assert nfc("cha\u0303o") == "chão"
    v = versao("saida-1")
    assert conferir(v, "39,5%")[0] == "certo"
    assert conferir(v, "39,5")[0] == "invalido"  # uma porcentagem sem % não é probabilidade
    assert "porcentagem" not in conferir(versao("tokens-1"), "7%")[3] or conferir(versao("tokens-1"), "7%")[0] == "invalido"


def test_tolerancia_dita_e_aplicada():
    v = versao("qkv-1")
    assert "0,001" in api.widget_html("exercicio:qkv-1", "w")
    assert conferir(v, str(v.resposta + 0.0009).replace(".", ","))[0] == "certo"
    assert conferir(v, str(v.resposta + 0.004).replace(".", ","))[0] == "errado"


def test_widget_acoes():
    r = api.responder({"widget": "exercicio:tokens-1", "acao": "outra", "inst": "a@1"})
    sem = r["campos"]["semente"]
    assert sem.isdigit() and "livro" not in r["desligar"]
    assert versao("tokens-1", int(sem)).enunciado in r["html"]
    r2 = api.responder({"widget": "exercicio:tokens-1", "campos": {"semente": sem}, "acao": "livro"})
    assert r2["campos"]["semente"] == "livro" and r2["desligar"] == ["livro"]
    r3 = api.responder({"widget": "exercicio:tokens-1", "campos": {"semente": "abc"}})
    assert "livro" in r3["erro"] and "número" in r3["erro"]
    # o id vem do nome do widget, nunca de um campo
    r4 = api.responder({"widget": "exercicio:tokens-1", "campos": {"id": "saida-1", "resposta": versao("tokens-1").resposta_txt},
                           "acao": "conferir"})
    assert 'data-veredito="certo"' in r4["html"]
    assert api.responder({"widget": "exercicio:nao-existe"}) == {"erro": "Widget desconhecido."}
    assert api.responder({"widget": "exercicio:tokens-1"})["html"]  # o pedido de partida (esquentar)


def test_html_estatico():
    h = api.widget_html("exercicio:proximo_token-1", api.id_do_widget("exercicio:proximo_token-1"))
    assert 'data-exercicio="proximo_token-1"' in h and 'id="widget-exercicio-proximo_token-1"' in h
    assert "<details" in h and "data-veredito" not in h  # sem conferir, sem veredito
    assert re.search(r'<label[^>]*><span>Token</span><input[^>]*name="resposta"', h)
    # uma escolha: rádios com rótulos fixos, (a), (b), (c); o conteúdo de cada opção está no enunciado
    h = api.widget_html("exercicio:escala-2", "w")
    assert h.count('type="radio" name="resposta"') == 3 and "<legend>Modelo</legend>" in h
    v = versao("escala-2")
    assert conferir(v, v.resposta)[0] == "certo" and conferir(v, "(" + v.resposta.upper() + ")")[0] == "certo"
    assert conferir(v, "d")[0] == "invalido"


def test_trava_guarda_os_gabaritos():
    lock = json.loads((RAIZ / "book" / "numeros.lock.json").read_text(encoding="utf-8"))
    for id_, ex in EXERCICIOS.items():
        pagina = lock[f"book/{ex.pagina}"]
        gabarito = pagina[f"exercicio:{id_}:resposta"]
        assert gabarito == versao(id_).resposta_txt
        assert conferir(versao(id_), gabarito)[0] == "certo"
        assert f"widget:exercicio:{id_}" in pagina
