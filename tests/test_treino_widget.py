"""O widget "treino": começar, pausar, recomeçar, a taxa e a norma; o estado inicial é o da página."""
import re

import pytest

from livro import brinquedo as b
from livro import treino as tr
from livro.formato import num
from livro.widgets import api as w
from livro.widgets import treino as wt


def pede(inst, acao=None, **campos):
    r = w.responder({"widget": "treino", "inst": inst, "acao": acao, "campos": campos})
    assert "erro" not in r, r
    return r


def passo_de(r):
    return int(re.search(r"Passo (\d+) de", r["html"]).group(1))


def test_estado_inicial_e_o_comeco_da_pagina():
    r = pede("t-ini")
    T = tr.Treino(tr.TAXA)
    assert passo_de(r) == 0 and f"perda {num(T.perda_agora())} nats" in r["html"]
    assert "data-continua" not in r["html"] and r["desligar"] == ["pausar"]
    p = T.proximo()
    for i in b.ranking(p, wt.N_TABELA):
        assert f"<td>{num(p[i], 2)}</td>" in r["html"]
    assert wt.TAXA_PADRAO == tr.TAXA and wt.PASSOS_PAGINA == tr.PASSOS


def test_comecar_anda_e_pede_mais_pausar_para():
    r = pede("t-anda", "comecar")
    n = passo_de(r)
    assert n >= 1 and "data-continua" in r["html"] and r["desligar"] == ["comecar"]
    r = pede("t-anda", "passo")
    assert passo_de(r) > n and "data-continua" in r["html"]
    r = pede("t-anda", "pausar")
    m = passo_de(r)
    assert "data-continua" not in r["html"] and r["desligar"] == ["pausar"]
    r = pede("t-anda", "passo")          # um "passo" que chega depois do "Pausar" não anda
    assert passo_de(r) == m and "data-continua" not in r["html"]
    assert passo_de(pede("t-anda", "recomecar")) == 0


def test_trocar_a_taxa_ou_a_norma_recomeca():
    pede("t-troca", "comecar")
    assert passo_de(pede("t-troca", None, taxa="0,05")) > 0
    assert passo_de(pede("t-troca", None, taxa="0,3")) == 0
    pede("t-troca", "comecar", taxa="0,3")
    assert passo_de(pede("t-troca", None, taxa="0,3", arranjo="pos")) == 0


def test_o_passo_da_pagina_da_o_numero_da_pagina(monkeypatch):
    monkeypatch.setattr(wt, "MAX_PASSOS", tr.PASSOS + 1)
    monkeypatch.setattr(wt, "MS_POR_PEDIDO", 10 ** 9)
    r = pede("t-pagina", "comecar")
    assert passo_de(r) == tr.PASSOS + 1
    R = tr.resumo({(tr.TAXA, False): tr.treinar(tr.PASSOS, tr.TAXA), **_sem_outros()})
    assert f"No passo {tr.PASSOS}, o da página: perda {num(R['perda_fim'][0])} nats" in r["html"]
    # no fim, nada de continuar, e os dois botões desligados
    assert "data-continua" not in r["html"] and set(r["desligar"]) == {"comecar", "pausar"}


def _sem_outros():
    """O resumo precisa dos outros treinos da página; aqui, curtos, só para ele rodar."""
    outros = {(t, False): tr.treinar(60, t) for t in tr.TAXAS if t != tr.TAXA}
    pos = tr.Treino(tr.TAXA_ALTA, pos_ln=True)
    pos.curva = [2.0, 0.2, 0.2, 3.0]
    return {**outros, (tr.TAXA_ALTA, True): pos, (tr.TAXA, True): tr.Treino(tr.TAXA, pos_ln=True)}


@pytest.mark.parametrize("taxa, msg", [("abc", "não é um número"), ("0", "maior que 0"),
                                       ("1,5", "no máximo 1"), ("", "vazio"), ("1e308", "no máximo 1"),
                                       ("<script>", "não é um número")])
def test_taxa_ruim_tem_mensagem(taxa, msg):
    r = w.responder({"widget": "treino", "campos": {"taxa": taxa}})
    assert msg in r["erro"]        # texto puro: a página o mostra com textContent


def test_norma_desconhecida_vira_pre_ln():
    r = w.responder({"widget": "treino", "campos": {"arranjo": "<b>x</b>"}})
    assert r["campos"]["arranjo"] == "pre" and "<b>x" not in r["html"]


def test_guarda_poucos_treinos():
    for i in range(wt.MAX_TREINOS + 3):
        pede(f"t-lru-{i}")
    assert len(wt._TREINOS) <= wt.MAX_TREINOS and "t-lru-0" not in wt._TREINOS


def test_o_laco_do_navegador_procura_a_marca_e_o_botao():
    """treino.js clica em button[data-acao="passo"] enquanto a resposta traz data-continua."""
    from conftest import RAIZ

    js = (RAIZ / "book" / "_static" / "widgets" / "treino.js").read_text(encoding="utf-8")
    assert "[data-continua]" in js and 'button[data-acao="passo"]' in js
    assert 'data-acao="passo"' in wt._form(wt._padrao()) and "data-continua" in pede("t-js", "comecar")["html"]
    assert '<script src="../_static/widgets/treino.js"' in (RAIZ / "book" / "treino.md").read_text(encoding="utf-8")


def test_pedido_de_partida_sem_inst_nao_anda_o_treino_guardado():
    """O aquecimento pede sem inst: a resposta sai do treino guardado no passo 0, sempre igual."""
    primeira = w.responder({"widget": "treino"})
    w.responder({"widget": "treino", "acao": "comecar"})      # sem inst, anda um treino novo
    assert w.responder({"widget": "treino"}) == primeira and passo_de(primeira) == 0
    assert all(T.passos == 0 for T in wt._FRESCOS.values())


def test_a_linha_do_passo_da_pagina_aparece_no_proprio_passo(monkeypatch):
    monkeypatch.setattr(wt, "PASSOS_PAGINA", 3)
    monkeypatch.setattr(wt, "MS_POR_PEDIDO", 10 ** 9)
    monkeypatch.setattr(wt, "MAX_PASSOS", 2)
    assert "o da página" not in pede("t-p3a", "comecar")["html"]
    monkeypatch.setattr(wt, "MAX_PASSOS", 3)
    r = pede("t-p3b", "comecar")
    T = tr.treinar(3, tr.TAXA)
    assert passo_de(r) == 3 and f"No passo 3, o da página: perda {num(T.curva[3])} nats." in r["html"]


def test_a_norma_escolhida_e_a_do_treino_e_a_taxa_1_vale():
    pos, pre = tr.Treino(tr.TAXA, pos_ln=True), tr.Treino(tr.TAXA)
    assert num(pos.perda_agora()) != num(pre.perda_agora())
    assert f"perda {num(pos.perda_agora())} nats" in pede("t-pos", None, arranjo="pos")["html"]
    html = pede("t-pre", None, arranjo="pre")["html"]
    assert f"perda {num(pre.perda_agora())} nats" in html
    assert pre.curva[0] > 1 and f">{num(pre.curva[0], 1)} nats</text>" in html   # o teto do gráfico: a perda do começo
    assert passo_de(pede("t-taxa1", None, taxa="1")) == 0


def test_a_curva_desenhada_cai_de_cima_para_baixo():
    """Em y, o teto fica em cima (y = 4) e zero embaixo (y = 116); em x, o passo MAX_PASSOS fica na borda direita."""
    svg = wt.curva_svg([2.0, 1.0, 0.0], 2.0)
    x1, x2 = 4 + 292 / wt.MAX_PASSOS, 4 + 2 * 292 / wt.MAX_PASSOS
    assert f'points="4.0,4.0 {x1:.1f},60.0 {x2:.1f},116.0"' in svg
    piso = 116 - 112 * wt.PISO / 2.0
    assert f'y1="{piso:.1f}"' in svg and ">2,0 nats</text>" in svg
    teto = wt.curva_svg([5.0, 9.0], 5.0)          # acima do teto, a curva fica no teto
    assert 'points="4.0,4.0 ' + f'{x1:.1f},4.0"' in teto
