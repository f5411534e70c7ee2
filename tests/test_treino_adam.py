"""Adam, com as duas correções de viés: no 1º passo, cada peso anda quase exatamente a taxa, contra
o sinal do gradiente (m̂ = g e v̂ = g², então m̂/√v̂ = ±1), seja qual for o tamanho de g."""
from livro import treino as tr


def test_primeiro_passo_anda_a_taxa_contra_o_gradiente():
    pesos = {"W": [[1.0, -2.0, 0.5]]}
    G = {"W": [[3.0, -0.001, 250.0]]}
    tr.Adam(pesos, 0.1).passo(pesos, G)
    for novo, esperado in zip(pesos["W"][0], [0.9, -1.9, 0.4]):
        assert abs(novo - esperado) < 1e-4
