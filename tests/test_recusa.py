"""A recusa do tokenizador do brinquedo: a mensagem exata que o leitor vê.

A página de tokens e o widget mostram esta mensagem. Ela nomeia o pedaço com o "␣" que a
página ensina (o token desconhecido de "o sofá e o chão" é "␣o", não "o") e lista os 12
tokens, `<|endoftext|>` incluído.
"""
import pytest

from livro import brinquedo as b

LISTA = ('Os 12 tokens são "o", "␣no", "␣gato", "␣muro", "␣sub", "iu", "␣telhado", "␣sofá", '
         '"␣chão", "␣e", "." e "<|endoftext|>" (o fim de texto, que não se digita).')

CASOS = {
    # a palavra existe sem o espaço, mas não com ele
    "o sofá e o chão":
        'O brinquedo não conhece "␣o": nenhum dos seus tokens serve para esse pedaço. '
        'O token "o" existe, mas sem o espaço: é outro token. ' + LISTA,
    # uma palavra desconhecida no meio da frase: o pedaço leva o "␣"
    "o cachorro subiu no muro":
        'O brinquedo não conhece "␣cachorro": nenhum dos seus tokens serve para esse pedaço. ' + LISTA,
    # uma palavra desconhecida no começo: sem espaço antes, sem "␣"
    "cachorro no muro":
        'O brinquedo não conhece "cachorro": nenhum dos seus tokens serve para esse pedaço. ' + LISTA,
}


@pytest.mark.parametrize("texto", sorted(CASOS))
def test_mensagem_exata(texto):
    with pytest.raises(b.ErroToken) as erro:
        b.tokenizar(texto)
    assert str(erro.value) == CASOS[texto]


def test_a_lista_tem_todos_os_tokens():
    assert b.V == 12 and len(b.VOCAB) == b.V
    for t in b.VOCAB:
        assert f'"{t}"' in LISTA


def test_continua_um_valueerror():
    """livro/widgets/api.py pega a recusa com `except ValueError`."""
    assert issubclass(b.ErroToken, ValueError)
    with pytest.raises(ValueError):
        b.codificar("o sofá e o chão")
