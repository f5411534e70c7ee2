"""O widget da página "De onde vêm os pesos": treinar o brinquedo no navegador do leitor.

O treino é `livro.treino`, o mesmo da página; aqui só se guarda o treino de cada widget
aberto (pelo `inst`, como o cache de KV de `geracao`) e se desenha o estado em HTML.
A ação "passo" dá alguns passos de Adam (uns 40 ms de conta) e, se o treino continua,
a resposta traz `data-continua`: `book/_static/widgets/treino.js` clica de novo no botão
escondido "passo" enquanto ela vier. Pausar é só parar de pedir.
"""
import time

from livro import brinquedo as b
from livro import treino as tr
from livro.formato import inteiro, num
from livro.widgets.campos import ErroEntrada, ler_num
from livro.widgets.html import barras, botao, campo_lista, campo_texto, escapa, linha, nota, tok

TAXA_PADRAO = 0.05       # a da página
PASSOS_PAGINA = 150      # o passo cujos números a página imprime
MAX_PASSOS = 300
MS_POR_PEDIDO = 40       # cada pedido devolve a vez ao worker depressa: os outros widgets respondem
MAX_TREINOS = 8
ARRANJOS = [("pre", "pré-LN (o do GPT-2)"), ("pos", "pós-LN (o de 2017)")]
DOMINIO_TAXA = "um número maior que 0 e no máximo 1"
N_TABELA = 5

PISO = tr.perda_minima()

_TREINOS = {}   # inst -> {"chave": (taxa, arranjo), "treino": Treino, "rodando": bool}


def _padrao():
    return {"taxa": "0,05", "arranjo": "pre"}


def _form(c):
    return (linha(campo_texto("taxa", "taxa de aprendizado", c["taxa"], 5, DOMINIO_TAXA),
                  campo_lista("arranjo", "a norma", ARRANJOS, c["arranjo"]))
            + linha(botao("Começar", "comecar", True), botao("Pausar", "pausar"),
                    botao("Recomeçar", "recomecar"),
                    botao("passo", "passo").replace("<button ", "<button hidden ", 1))
            + nota("Trocar a taxa ou a norma recomeça do mesmo começo sorteado. Com taxas altas o "
                   "treino pode ficar caótico: dali em diante, o último bit de uma exponencial muda a "
                   "curva, e outro navegador pode mostrar outros números.", "lw-dica"))


def ler_taxa(valor):
    taxa = ler_num(valor, "a taxa de aprendizado", dominio=DOMINIO_TAXA)
    if not 0 < taxa <= 1:
        raise ErroEntrada(f"A taxa de aprendizado precisa ser {DOMINIO_TAXA}.")
    return taxa


_FRESCOS = {}  # (taxa, norma) -> um treino no passo 0, para os pedidos sem inst que não andam


def _estado(inst, taxa, arranjo, acao):
    """O treino deste widget: o mesmo enquanto a taxa e a norma não mudam; novo em "recomecar".

    Sem inst (o aquecimento do worker, os testes), o passo 0 sai de um treino guardado: o pedido
    de partida responde sem refazer a primeira ida e volta do corpus."""
    chave = (taxa, arranjo)
    if not inst and acao not in ("comecar", "passo"):
        if chave not in _FRESCOS:
            if len(_FRESCOS) >= MAX_TREINOS:
                _FRESCOS.clear()
            _FRESCOS[chave] = tr.Treino(taxa, pos_ln=arranjo == "pos")
        return {"chave": chave, "treino": _FRESCOS[chave], "rodando": False}
    e = _TREINOS.pop(inst, None) if inst else None
    if e is None or e["chave"] != chave or acao == "recomecar":
        e = {"chave": chave, "treino": tr.Treino(taxa, pos_ln=arranjo == "pos"), "rodando": False}
    if inst:
        _TREINOS[inst] = e
        while len(_TREINOS) > MAX_TREINOS:
            del _TREINOS[next(iter(_TREINOS))]
    return e


def anda(e, ms=None):
    """Alguns passos, até `ms` milissegundos de conta (ao menos um) ou MAX_PASSOS."""
    ms = MS_POR_PEDIDO if ms is None else ms
    t0 = time.perf_counter()
    T = e["treino"]
    while T.passos < MAX_PASSOS:
        T.anda(1)
        if (time.perf_counter() - t0) * 1000 >= ms:
            break
    if T.passos >= MAX_PASSOS:
        e["rodando"] = False


def curva_svg(curva, teto):
    """A curva da perda em SVG: x de 0 a MAX_PASSOS, y de 0 a `teto` nats."""
    L, A, m = 300.0, 120.0, 4.0

    def ponto(i, v):
        return f"{m + (L - 2 * m) * i / MAX_PASSOS:.1f},{A - m - (A - 2 * m) * min(v, teto) / teto:.1f}"
    pts = " ".join(ponto(i, v) for i, v in enumerate(curva))
    piso = A - m - (A - 2 * m) * PISO / teto
    return (f'<svg class="lw-curva" viewBox="0 0 {L:.0f} {A:.0f}" width="100%" role="img" style="max-width:36rem;display:block" '
            f'aria-label="A curva da perda do corpus a cada passo de treino, com a linha tracejada do piso">'
            f'<line x1="{m}" y1="{piso:.1f}" x2="{L - m}" y2="{piso:.1f}" stroke="#999" '
            f'stroke-dasharray="3 3"/>'
            f'<polyline points="{pts}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>'
            f'<text x="{m + 2}" y="{m + 8}" class="lw-rotulo">{num(teto, 1)} nats</text>'
            f'<text x="{L - m}" y="{piso - 3:.1f}" class="lw-rotulo" text-anchor="end">piso</text>'
            f'<text x="{L - m}" y="{A - 1}" class="lw-rotulo" text-anchor="end">'
            f'passo {inteiro(MAX_PASSOS)}</text></svg>')


_MAO = []   # as probabilidades do brinquedo posto à mão, calculadas uma vez


def _tabela(T):
    p = T.proximo()
    if not _MAO:
        _MAO.append(b.modelo(b.IDS_PROMPT)["p"][-1])
    mao = _MAO[0]
    itens = [(tok(i), p[i], [num(p[i], 2), num(mao[i], 2)], "") for i in b.ranking(p, N_TABELA)]
    return (nota("Depois de “o gato subiu no”, os mais prováveis do brinquedo treinado:")
            + barras(itens, ["token", "", "treinado", "à mão"]))


def _treino(c, acao, inst):
    c = dict(c)
    taxa = ler_taxa(c.get("taxa"))
    arranjo = c.get("arranjo") if c.get("arranjo") in dict(ARRANJOS) else "pre"
    c["arranjo"] = arranjo
    e = _estado(inst, taxa, arranjo, acao)
    if acao == "comecar":
        e["rodando"] = True
    elif acao == "pausar":
        e["rodando"] = False
    if e["rodando"] and acao in ("comecar", "passo"):
        anda(e)
    T = e["treino"]
    passos = T.passos
    agora = T.perda_agora()
    teto = max(T.curva[0], 1.0)
    linhas = [f"Passo {inteiro(passos)} de {inteiro(MAX_PASSOS)} · perda {num(agora, 3)} nats "
              f"(piso do corpus: {num(PISO, 3)})"]
    if passos >= PASSOS_PAGINA:
        linhas.append(f"No passo {inteiro(PASSOS_PAGINA)}, o da página: perda "
                      f"{num(T.curva[PASSOS_PAGINA], 3)} nats.")
    marca = ' data-continua="1"' if e["rodando"] else ""
    html = (f'<div class="lw-treino"{marca}>' + curva_svg(T.curva, teto)
            + "".join(nota(escapa(s)) for s in linhas) + _tabela(T) + "</div>")
    if e["rodando"]:
        desligar = ["comecar"]
    elif passos >= MAX_PASSOS:
        desligar = ["comecar", "pausar"]
    else:
        desligar = ["pausar"]
    return html, c, desligar


REGISTRO = {"treino": (_padrao, _form, _treino)}
