"""Os widgets com a entrada que um leitor cola e com os botões no fim do caminho.

Um texto colado de um PDF ou de um Mac chega decomposto (NFD: "a" + o acento à parte) e tem de
achar os mesmos tokens que o composto; «Recomeçar» volta sempre ao estado inicial, e um botão
que não pode agir vem desligado.
"""
import unicodedata

import pytest

from livro import brinquedo as b
from livro.widgets import api
from livro.widgets.campos import ler_num, ler_texto
from livro.widgets.passos import PASSOS_BLOCO

SOFA = "o sofá subiu no"
SOFA_NFD = unicodedata.normalize("NFD", SOFA)


def test_o_texto_decomposto_e_mesmo_outro():
    assert SOFA_NFD != SOFA and len(SOFA_NFD) == len(SOFA) + 1
    with pytest.raises(b.ErroToken):
        b.tokenizar(SOFA_NFD)


def test_ler_texto_compoe():
    assert ler_texto(SOFA_NFD) == SOFA
    assert ler_texto(None) == ""
    assert ler_num(unicodedata.normalize("NFD", "0,5"), "x") == 0.5


@pytest.mark.parametrize("widget, campo", [("tokens", "texto"), ("saida", "frase")])
def test_frase_decomposta_da_a_mesma_resposta_que_a_composta(widget, campo):
    nfc = api.responder({"widget": widget, "campos": {campo: SOFA}})
    nfd = api.responder({"widget": widget, "campos": {campo: SOFA_NFD}})
    assert "erro" not in nfc, nfc
    assert nfd["html"] == nfc["html"]


def _bloco(campos=None, acao=None):
    return api.responder({"widget": "bloco", "campos": campos or {}, "acao": acao})


def test_bloco_recomecar_de_um_passo_impossivel_volta_ao_inicio():
    assert "erro" in _bloco({"passo": "99"}, "avancar")
    r = _bloco({"passo": "99"}, "recomecar")
    assert r == _bloco()
    assert r["campos"]["passo"] == "1"


def test_bloco_recomecar_de_uma_grade_com_letras_volta_ao_inicio():
    assert "erro" in _bloco({"x11": "abc", "com_atencao": False, "passo": "4"})
    r = _bloco({"x11": "abc", "com_atencao": False, "passo": "4", "caso": "ultimo"}, "recomecar")
    assert r == _bloco()


def test_bloco_os_casos_e_mostrar_tudo_saem_de_um_passo_impossivel():
    assert "erro" not in _bloco({"passo": "abc"}, "caso:ultimo")
    assert _bloco({"passo": "0"}, "tudo")["campos"]["passo"] == str(len(PASSOS_BLOCO))


def test_bloco_desliga_o_que_nao_pode_agir():
    total = len(PASSOS_BLOCO)
    assert _bloco()["desligar"] == ["voltar"]
    assert _bloco({"passo": "2"}, "voltar")["desligar"] == ["voltar"]
    meio = _bloco({"passo": "3"})
    assert meio["desligar"] == []
    fim = _bloco({"passo": str(total - 1)}, "avancar")
    assert fim["campos"]["passo"] == str(total)
    assert sorted(fim["desligar"]) == ["avancar", "tudo"]
    assert sorted(_bloco(acao="tudo")["desligar"]) == ["avancar", "tudo"]
    assert sorted(_bloco(acao="caso:base")["desligar"]) == ["avancar", "tudo"]


def test_proximo_recomecar_de_um_campo_ruim_volta_ao_inicio():
    ruim = {"T": "quente", "ids": "0 2 4 5 1 6"}
    assert "erro" in api.responder({"widget": "proximo", "campos": ruim})
    r = api.responder({"widget": "proximo", "campos": ruim, "acao": "recomecar"})
    assert r == api.responder({"widget": "proximo"})


def test_bloco_avancar_na_ultima_linha_fica_na_ultima():
    ultimo = str(len(PASSOS_BLOCO))
    r = _bloco({"passo": ultimo}, "avancar")
    assert "erro" not in r, r
    assert r["campos"]["passo"] == ultimo
    assert _bloco({"passo": "1"}, "voltar")["campos"]["passo"] == "1"
