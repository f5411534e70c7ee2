"""Cada número do brinquedo impresso no material do curso, nas casas impressas.

Uma asserção por número; cada teste cita a frase de onde o número vem:
  [bloco]   ../shared/course/000_83d16cc678541138.txt  (a página "O bloco" do curso)
  [slides]  ../shared/course/003_2d178fb194901ddd.txt  (slides e notas do apresentador)
Os valores esperados são as strings do curso; o brinquedo calcula, o formatador imprime.
"""
import ast
import math
import os
import sys

import pytest

from livro import brinquedo as b
from livro.formato import num, vetor

RAIZ = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

IDS = b.IDS_PROMPT
R = b.modelo(IDS)
SEM = b.modelo(IDS, com_atencao=False)
TEL, MURO, SOFA, CHAO, GATO = (b.VOCAB.index(t) for t in ("␣telhado", "␣muro", "␣sofá", "␣chão", "␣gato"))
PONTO = b.VOCAB.index(".")


def v3(v):
    return vetor(v, 3)


# --- o brinquedo em si -------------------------------------------------------

def test_so_biblioteca_padrao():
    """O módulo roda igual no CPython e no Pyodide: só importa a biblioteca padrão."""
    arvore = ast.parse(open(os.path.join(RAIZ, "lab", "livro", "brinquedo.py"), encoding="utf-8").read())
    importados = set()
    for no in ast.walk(arvore):
        if isinstance(no, ast.Import):
            importados |= {a.name.split(".")[0] for a in no.names}
        elif isinstance(no, ast.ImportFrom):
            importados.add(no.module.split(".")[0])
    assert importados <= set(sys.stdlib_module_names), importados - set(sys.stdlib_module_names)


def test_formas():
    assert (len(b.E), len(b.E[0])) == (b.V, b.d) == (12, 4)
    assert (len(R["X"]), len(R["X"][0])) == (5, 4)
    assert (len(R["A"]), len(R["A"][0]), len(R["A"][0][0])) == (2, 5, 5)
    assert (len(R["y"]), len(R["y"][0])) == (5, 4)
    assert (len(R["z"]), len(R["z"][0])) == (5, 12)


def test_ids_do_prompt():
    """[slides] 'passo 1: ids de entrada [0, 2, 4, 5, 1]'."""
    assert b.codificar("o gato subiu no") == [0, 2, 4, 5, 1]
    assert b.tokenizar("o gato subiu")[-2:] == ["␣sub", "iu"]
    assert b.tokenizar("o gato subiu no") == ["o", "␣gato", "␣sub", "iu", "␣no"]


def test_ids_que_o_curso_implica():
    for token, i in [("o", 0), ("␣no", 1), ("␣gato", 2), ("␣sub", 4), ("iu", 5), ("␣telhado", 6), (".", 10)]:
        assert b.VOCAB[i] == token


def test_palavra_desconhecida_da_mensagem():
    with pytest.raises(b.ErroToken, match="não conhece \"␣cachorro\""):
        b.tokenizar("o cachorro")
    with pytest.raises(b.ErroToken, match="vazia"):
        b.tokenizar("   ")


def test_decodificar():
    """[slides] 'Decodificar: o ␣gato ␣sub iu ␣no ␣telhado . → "o gato subiu no telhado."'."""
    assert b.decodificar([0, 2, 4, 5, 1, 6, 10, b.EOT]) == "o gato subiu no telhado."


# --- [bloco] o exemplo atravessando o bloco ----------------------------------

def test_x5():
    """[bloco] 'h_5 = [-0,5; -0,5; -0,5; 1,5] + ...' (x_5, a última linha de X)."""
    assert vetor(R["X"][4], 1) == "[-0,5; -0,5; -0,5; 1,5]"


def test_a5():
    """[bloco] 'Para o último token, ␣no: a_5 = [-0,739; 1,411; -0,521; -0,520]'."""
    assert v3(R["a"][4]) == "[-0,739; 1,411; -0,521; -0,520]"


def test_h5():
    """[bloco] '= [-1,239; 0,911; -1,021; 0,980]' (h_5 = x_5 + a_5)."""
    assert v3(R["h"][4]) == "[-1,239; 0,911; -1,021; 0,980]"


def test_mu():
    """[bloco] 'Média μ = (...)/4 = -0,092'."""
    assert num(b.media(R["h"][4])) == "-0,092"


def test_sigma():
    """[bloco] 'desvio-padrão σ = 1,041'."""
    assert num(b.desvio(R["h"][4])) == "1,041"


def test_u_linha():
    """[bloco] 'u' = (h - μ)/σ = [-1,102; 0,964; -0,892; 1,030]'."""
    assert v3(R["u2"][4]) == "[-1,102; 0,964; -0,892; 1,030]"


def test_gelu_negativo():
    """[bloco] 'gelu(-1,102) = -0,149'."""
    assert num(b.gelu(R["u2"][4][0])) == "-0,149"


def test_gelu_positivo():
    """[bloco] 'gelu(1,102) = 0,952' (de u' = 1,10169..., não de 1,102 arredondado)."""
    assert num(b.gelu(-R["u2"][4][0])) == "0,952"
    assert num(b.gelu(1.102)) == "0,953"  # com o valor arredondado a conta não fecha


def test_constantes_da_gelu():
    """[bloco] 'tanh(0,798 (z + 0,0447 z³))'."""
    assert num(b.C_GELU) == "0,798"
    assert num(b.K_GELU, 4) == "0,0447"


def test_m5():
    """[bloco] 'm_5 = [0,803; 0,640; 0,560; 0,718]'."""
    assert v3(R["m"][4]) == "[0,803; 0,640; 0,560; 0,718]"


def test_m_e_um_modulo_suave():
    """[bloco] 'm = gelu(u') + gelu(-u')'."""
    for z, mz in zip(R["u2"][4], R["m"][4]):
        assert mz == pytest.approx(b.gelu(z) + b.gelu(-z), abs=1e-12)


def test_y5():
    """[bloco] '= [-0,436; 1,551; -0,461; 1,698]' (y_5 = h_5 + m_5)."""
    assert v3(R["y"][4]) == "[-0,436; 1,551; -0,461; 1,698]"


def test_y5_sem_atencao():
    """[bloco] 'Com o ramo de atenção desligado, h = x e ... y_5 = [-0,248; -0,248; -0,248; 3,088]'."""
    assert v3(SEM["y"][4]) == "[-0,248; -0,248; -0,248; 3,088]"


def test_mlp_do_brinquedo():
    """[bloco] 'W_1 = [I | -I]' e 'W_2 = [I ; I]' (4 x 8 e 8 x 4)."""
    assert (len(b.W1), len(b.W1[0]), len(b.W2), len(b.W2[0])) == (4, 8, 8, 4)


# --- [slides] o exemplo: de y a ␣telhado --------------------------------------

Z5, P5 = R["z"][4], R["p"][4]


@pytest.mark.parametrize("tok,logit,prob", [
    ("␣telhado", "2,491", "0,395"), ("␣muro", "1,463", "0,141"), ("␣sofá", "0,999", "0,089"),
    ("␣chão", "0,970", "0,086"), ("␣gato", "0,634", "0,062")])
def test_tabela_de_saida(tok, logit, prob):
    """[slides] a tabela 'token / z / p' do slide 'O exemplo: de y a ␣telhado'."""
    i = b.VOCAB.index(tok)
    assert num(Z5[i]) == logit
    assert num(P5[i]) == prob


def test_os_cinco_de_cima_em_ordem():
    assert b.ranking(P5, 5) == [TEL, MURO, SOFA, CHAO, GATO]


def test_outros_7():
    """[slides] 'outros 7 0,227'."""
    assert num(1 - sum(P5[i] for i in (TEL, MURO, SOFA, CHAO, GATO))) == "0,227"


@pytest.mark.parametrize("linha,esperado", [(0, "0,500"), (1, "0,444"), (2, "0,274"), (3, "0,311"), (4, "0,395")])
def test_p_alvo_por_linha(linha, esperado):
    """[slides] 'p(alvo) = 0,500; 0,444; 0,274; 0,311; 0,395'."""
    assert num(R["p"][linha][IDS[linha + 1] if linha < 4 else TEL]) == esperado


def test_perda_media():
    """[slides] '→ média de −ln p = 0,979 nats'."""
    perdas = b.perdas(IDS + [TEL])
    assert num(sum(perdas) / len(perdas)) == "0,979"


def test_uniforme():
    """[slides] '(uniforme: ln 12 = 2,485)'."""
    assert num(math.log(b.V)) == "2,485"


def test_sem_atencao_gato():
    """[slides] 'Sem atenção a última linha diz ␣gato 0,455, ␣telhado 0,143'."""
    p = SEM["p"][4]
    assert num(p[GATO]) == "0,455"
    assert num(p[TEL]) == "0,143"
    assert b.ranking(p, 2) == [GATO, TEL]


# --- [slides] gerando o exemplo -----------------------------------------------

@pytest.mark.parametrize("T,esperado", [
    (0.5, ("0,761", "0,097", "0,039")), (1.0, ("0,395", "0,141", "0,089")), (2.0, ("0,208", "0,124", "0,098"))])
def test_tabela_de_temperatura(T, esperado):
    """[slides] a tabela 'T / ␣telhado / ␣muro / ␣sofá' do slide 'Gerando o exemplo'."""
    p = b.softmax(Z5, T)
    assert (num(p[TEL]), num(p[MURO]), num(p[SOFA])) == esperado


def test_guloso_e_uniforme_nos_extremos():
    """[slides] 'T → 0: guloso. T → ∞: uniforme'."""
    assert num(b.softmax(Z5, 1e-3)[TEL]) == "1,000"
    assert num(max(b.softmax(Z5, 1e6)), 4) == num(1 / 12, 4)


def test_top_k_2():
    """[slides] 'top-k 2: ␣telhado 0,737, ␣muro 0,263'."""
    ordem, q = b.filtrar(b.softmax(Z5), k=2)
    assert ordem == [TEL, MURO]
    assert (num(q[0]), num(q[1])) == ("0,737", "0,263")


def test_top_p_a_0_7_ficam_6():
    """[slides] 'T = 0,7 + top-p 0,9: ficam 6'."""
    ordem, _ = b.filtrar(b.softmax(Z5, 0.7), top_p=0.9)
    assert len(ordem) == 6


def test_somas_acumuladas():
    """[slides] 'soma acumulada 0,626; 0,770; 0,845…' (renormalizadas sobre os 6 mantidos)."""
    _, q = b.filtrar(b.softmax(Z5, 0.7), top_p=0.9)
    assert [num(s) for s in b.acumuladas(q)[:3]] == ["0,626", "0,770", "0,845"]


def test_somas_acumuladas_sao_renormalizadas():
    """A leitura adotada: sem renormalizar, as somas seriam outras."""
    p = b.softmax(Z5, 0.7)
    brutas = b.acumuladas([p[i] for i in b.ranking(p, 3)])
    assert [num(s) for s in brutas] == ["0,571", "0,702", "0,770"]


@pytest.mark.parametrize("u,token", [(0.5, "␣telhado"), (0.8, "␣sofá")])
def test_sorteio(u, token):
    """[slides] 'u = 0,5 dá ␣telhado, u = 0,8 dá ␣sofá' (T = 0,7, top-p 0,9)."""
    escolhido, _ = b.escolher(Z5, T=0.7, top_p=0.9, u=u)
    assert b.VOCAB[escolhido] == token


def test_top_p_ficam_8_vale_em_T_1():
    """[slides] 'top-p 0,9 com T = 2: ficam 8 de 12' — o livro adota T = 1, onde isso vale."""
    ordem, _ = b.filtrar(b.softmax(Z5, 1.0), top_p=0.9)
    assert len(ordem) == 8


def test_tensao_top_p_em_T_2():
    """A frase do slide não pode valer em T = 2 junto com os outros números impressos.

    Só com o que o curso imprime (com a folga do arredondamento): em T = 2,
    p(␣sofá) <= 0,0985 e p(i) = p(␣sofá) e^{(z_i - z_sofá)/2} para ␣chão e ␣gato
    (logits da tabela). Os 7 "outros" ficam abaixo de ␣gato. Para o top-p 0,9
    manter 8, os 5 de cima mais os 3 maiores "outros" teriam de somar >= 0,9;
    mas no máximo somam top5 + 3 p(␣gato) < 0,9. O livro adota a leitura em T = 1.
    (Essa conta só usa números impressos, não testa código: fica aqui, em palavras.)
    O brinquedo, coerente com o curso, mantém 10 em T = 2 (não 8).
    """
    ordem, _ = b.filtrar(b.softmax(Z5, 2.0), top_p=0.9)
    assert ordem == [TEL, MURO, SOFA, CHAO, GATO, b.VOCAB.index("␣e"), b.VOCAB.index("o"), b.EOT,
                     b.VOCAB.index("␣no"), b.VOCAB.index("␣sub")]


# --- [slides] a geração, passo a passo ---------------------------------------

PASSOS_GULOSO = b.gerar(IDS)
PASSOS_PADRAO = b.gerar(IDS, T=0.7, top_p=0.9, us=[0.5])


@pytest.mark.parametrize("passos", [PASSOS_GULOSO, PASSOS_PADRAO], ids=["guloso", "T=0,7 top-p 0,9 u=0,5"])
def test_tres_passos(passos):
    """[slides] 'passo 1 ... ␣telhado 0,395; 2 ... + 6 → . 0,538; 3 ... + 10 → <|endoftext|> 0,401'."""
    assert [p["token"] for p in passos] == [TEL, PONTO, b.EOT]
    assert [p["entrada"] for p in passos] == [IDS, IDS + [6], IDS + [6, 10]]
    assert [num(p["p"]) for p in passos] == ["0,395", "0,538", "0,401"]


def test_cache_kv_calcula_uma_linha_por_passo():
    """[slides] 'As linhas 1–5 nunca mudam ... cada passo calcula uma linha'."""
    assert [p["linhas_calculadas"] for p in PASSOS_GULOSO] == [5, 6, 7]
    maior = b.modelo(IDS + [6, 10])
    for i in range(5):
        assert maior["y"][i] == pytest.approx(R["y"][i], abs=1e-12)
    cache = b.CacheKV()
    for t in IDS + [6, 10]:
        z = cache.adiciona(t)
    assert z == pytest.approx(maior["z"][6], abs=1e-12)


def test_decodifica_a_geracao():
    ids = IDS + [p["token"] for p in PASSOS_GULOSO]
    assert b.decodificar(ids) == "o gato subiu no telhado."


# --- [slides, notas] o simulador: uma cabeça, 3 tokens ------------------------

MINI = b.mini_bloco()


def test_mini_linha_3_de_A():
    """[slides, notas] 'linha 3 de A = 0,107; 0,787; 0,107'."""
    assert [num(x) for x in MINI["A"][2]] == ["0,107", "0,787", "0,107"]


def test_mini_y31():
    """[slides, notas] 'y31 = 1,651'."""
    assert num(MINI["y"][2][0]) == "1,651"


def test_mini_linha_2_vezes_10():
    """[slides, notas] 'linha 2 × 10 (o u não muda, só o residual carrega o tamanho)'."""
    x = [linha[:] for linha in b.MINI_X]
    x[1] = [10 * v for v in x[1]]
    r = b.mini_bloco(x)
    assert r["u"][1] == pytest.approx(MINI["u"][1], abs=1e-4)  # só o ε da LN distingue
    assert v3(MINI["h"][1]) == "[-0,630; -2,740; -1,000; 0,370]"
    assert v3(r["h"][1]) == "[-18,630; -2,740; -10,000; -8,630]"   # h = 10 x + a: a é o mesmo


def test_mini_so_o_ultimo_muda():
    """[slides, notas] 'só o último token muda (as linhas 1 e 2 não se mexem: máscara causal)'."""
    x = [linha[:] for linha in b.MINI_X]
    x[2] = [3, -1, 0, 2]
    r = b.mini_bloco(x)
    for i in (0, 1):
        assert r["y"][i] == pytest.approx(MINI["y"][i], abs=1e-12)
    assert v3(r["y"][2]) == "[4,784; -1,724; 0,105; 3,376]"


def test_mini_sem_atencao():
    """[slides, notas] 'sem atenção (h = x, cada linha sozinha)'."""
    r = b.mini_bloco(com_atencao=False)
    assert r["h"] == r["x"]


# --- erros em português --------------------------------------------------------

@pytest.mark.parametrize("kw,trecho", [
    ({"T": 0}, "temperatura"), ({"top_p": 0}, "top-p"), ({"k": 13}, "top-k"), ({"u": 1.5}, "sorteio")])
def test_configuracao_invalida(kw, trecho):
    with pytest.raises(ValueError, match=trecho):
        b.escolher(Z5, **kw)
