"""Os widgets dos passos 6 e 7: a saída com temperatura; escolher, anexar, rodar de novo."""

from livro import brinquedo as b
from livro.formato import casas_min, cientifico, contagem, inteiro, num
from livro.widgets.campos import inteiro_se_der, ligado, ler_num, ler_texto
from livro.widgets.html import (
    botao,
    campo_marca,
    campo_texto,
    escapa,
    linha,
    nota,
    oculto,
    tok,
    barras,
)
from livro.widgets.passos import corta, modelo_prompt, nota_eot

# ---------------------------------------------------------------------------
# Passo 6: a saída
# ---------------------------------------------------------------------------
# O que cada campo de amostragem aceita (o brinquedo confere em valida_config e diz o mesmo).
DOMINIO_T = "um número finito maior que 0"
DOMINIO_TOP_P = "um número maior que 0 e no máximo 1"
DOMINIO_U = "um número de 0 (inclusive) a 1 (exclusive)"


def eco(x):
    """Um valor que o leitor escolheu, de volta na tela, sem nunca virar outro que o widget recusa:
    0,0001 -> 10⁻⁴ (nunca "0"), 0,9999 -> 0,9999 (nunca "1"). Abaixo de 10⁻³ e a partir de 10⁶, a
    forma científica; no meio, as casas que o próprio valor tem."""
    if x == 0:
        return "0"
    if abs(x) < 1e-3 or abs(x) >= 1e6:
        mantissa = f"{x:.11e}".split("e")[0]           # as casas da mantissa, sem zeros à direita
        return cientifico(x, max(1, len(mantissa.rstrip("0").split(".")[1])))
    for casas in range(3, 18):               # 17 casas bastam para voltar ao mesmo float
        s = casas_min(x, casas)
        if float(s.replace(".", "").replace(",", ".")) == x:
            return s
    return s


def _saida_padrao():
    return {"frase": b.PROMPT, "atencao": True}


def _saida_form(c):
    # Sem temperatura aqui: o passo 6 entrega as probabilidades do modelo (T = 1); T é do passo 7.
    return (linha(
        f'<label class="lw-campo lw-largo"><span>Prompt</span><input type="text" name="frase" '
        f'value="{escapa(c["frase"])}" autocomplete="off" spellcheck="false" disabled></label>',
        campo_marca("atencao", "com atenção", ligado(c["atencao"])))
        + linha(botao("Calcular")))


def _saida(c, acao, inst):
    c = dict(c)
    frase = ler_texto(c.get("frase", b.PROMPT))
    atencao = ligado(c.get("atencao", True))
    ids = b.codificar(frase)            # erro em português para palavra fora do vocabulário
    r = modelo_prompt(atencao) if ids == b.IDS_PROMPT else b.modelo(ids, atencao)
    z = r["z"][-1]                      # (V,) a última linha prevê o próximo token
    p = b.softmax(z)                    # (V,)
    # Do mais provável ao menos; num empate de p, vale a ordem dos logits.
    ordem = sorted(range(b.V), key=lambda i: (-p[i], -z[i], i))
    itens = [(tok(i), p[i], [num(p[i]), num(z[i])], "lw-primeiro" if n == 0 else "")
             for n, i in enumerate(ordem)]
    efeito = "A temperatura, que muda essas probabilidades antes do sorteio, é o assunto do passo 7."
    texto = b.decodificar(ids)
    out = [barras(itens, ["token", "p = softmax(z)", "p", "logit z"]),
           nota(f"O mais provável, {escapa(tok(ordem[0]))}, fica com {num(p[ordem[0]])}; "
                 f"os {inteiro(b.V)} valores somam {num(sum(p))}. " + efeito),
           nota(f"Última linha de «{escapa(corta(texto)) if texto else '&lt;|endoftext|&gt;'}» "
                 f"({contagem(len(ids), 'token')}), "
                 + ("com atenção." if atencao else
                    "sem atenção: ela só vê o último token e a sua posição.")),
           nota_eot(ids, "O prompt")]
    if len(ids) > b.n_ctx:
        out.append(nota(f"O prompt tem {contagem(len(ids), 'token')}, mais que as "
                         f"{contagem(b.n_ctx, 'posição', 'posições')} (n_ctx) que o brinquedo conhece: "
                         "as posições além dessas não têm linha em P.", "lw-aviso"))
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# Passo 7: escolher, anexar, rodar de novo (com cache de KV)
# ---------------------------------------------------------------------------
PRESETS_PROXIMO = {
    "padrao": {"T": "0,7", "k": "", "top_p": "0,9", "u": "0,5"},
    "guloso": {"T": "1", "k": "", "top_p": "", "u": ""},
    "quente": {"T": "2", "k": "", "top_p": "", "u": "0,5"},
    "topk2": {"T": "1", "k": "2", "top_p": "", "u": "0,5"},
    "u08": {"T": "0,7", "k": "", "top_p": "0,9", "u": "0,8"},
}
# O cache de KV de cada widget aberto: inst -> (cache, z). No navegador, um worker só pode
# servir muitas páginas seguidas (widgets.js manda um inst novo a cada carga da página): só
# os MAX_CACHES_KV usados por último ficam guardados.
_CACHES_KV = {}
MAX_CACHES_KV = 32


def _prox_padrao():
    return {**PRESETS_PROXIMO["padrao"], "ids": " ".join(map(str, b.IDS_PROMPT))}


def _prox_form(c):
    return (linha(campo_texto("T", "T", c["T"], 4, "temperatura, maior que 0"),
                   campo_texto("k", "top-k", c["k"], 3, "vazio: sem corte por k"),
                   campo_texto("top_p", "top-p", c["top_p"], 4, "vazio: sem corte por p"),
                   campo_texto("u", "u", c["u"], 4, "o sorteio, em [0, 1); vazio: guloso"),
                   botao("Escolher"))
            + linha(botao("Anexar e rodar de novo", "anexar", True), botao("Recomeçar", "recomecar"))
            + linha(botao("Padrão", "preset:padrao"), botao("Guloso", "preset:guloso"),
                     botao("Quente (T = 2)", "preset:quente"), botao("Top-k 2", "preset:topk2"),
                     botao("u = 0,8", "preset:u08"), classe="lw-controles lw-casos")
            + nota("Vazio em top-k ou top-p: sem esse corte. Vazio em u: guloso (fica o mais provável). "
                    "Na tabela, q é p renormalizado entre os tokens que ficam.", "lw-dica")
            + oculto("ids", c["ids"]))


def _ler_ids(s):
    try:
        ids = [int(t) for t in str(s).split()]
    except ValueError:
        return list(b.IDS_PROMPT)
    if not ids or len(ids) > b.n_ctx or any(not 0 <= i < b.V for i in ids) or b.EOT in ids[:-1]:
        return list(b.IDS_PROMPT)
    return ids


def _logits(inst, ids):
    """z da última linha; reaproveita o cache de KV do widget -> (cache, z, linhas novas)."""
    guardado = _CACHES_KV.pop(inst, None) if inst else None  # o usado agora vai para o fim da fila
    if guardado and guardado[0].ids == ids:
        cache, z, novas = guardado[0], guardado[1], 0
    elif guardado and guardado[0].ids == ids[:-1]:
        cache = guardado[0]
        z = cache.adiciona(ids[-1])
        novas = 1
    else:
        cache = b.CacheKV()
        for t in ids:
            z = cache.adiciona(t)
        novas = len(ids)
    if inst:
        _CACHES_KV[inst] = (cache, z)
        while len(_CACHES_KV) > MAX_CACHES_KV:
            del _CACHES_KV[next(iter(_CACHES_KV))]
    return cache, z, novas


def _proximo(c, acao, inst):
    # «Recomeçar» volta sempre ao estado inicial (o prompt e a configuração padrão), mesmo de
    # um campo com letras: o widget nunca fica preso num erro.
    c = _prox_padrao() if acao == "recomecar" else dict(c)
    if acao and acao.startswith("preset:"):
        c.update(PRESETS_PROXIMO.get(acao[7:], {}))
    ids = _ler_ids(c.get("ids"))
    T = ler_num(c.get("T"), "a temperatura T", dominio=DOMINIO_T)
    k = inteiro_se_der(ler_num(c.get("k"), "o top-k", opcional=True, dominio=f"um inteiro de 1 a {b.V}"))
    top_p = ler_num(c.get("top_p"), "o top-p", opcional=True, dominio=DOMINIO_TOP_P)
    u = ler_num(c.get("u"), "o sorteio u", opcional=True, dominio=DOMINIO_U)
    b.valida_config(T, k, top_p, u)
    n_prompt = len(b.IDS_PROMPT)
    fim = ids[-1] == b.EOT or len(ids) >= b.n_ctx
    anexado = None
    if acao == "anexar" and not fim:
        _, z, _ = _logits(inst, ids)
        anexado, _ = b.escolher(z, T, k, top_p, u)
        ids = ids + [anexado]
        fim = anexado == b.EOT or len(ids) >= b.n_ctx
    c["ids"] = " ".join(map(str, ids))
    chips = "".join(
        f'<li class="lw-token{" lw-novo" if n >= n_prompt else ""}"><span class="lw-token-texto">{escapa(tok(i))}'
        f'</span><span class="lw-token-id">{inteiro(i)}</span></li>' for n, i in enumerate(ids))
    out = [f'<ol class="lw-tokens" aria-label="a sequência até aqui">{chips}</ol>',
           nota(f"Texto: «{escapa(b.decodificar(ids))}»")]
    if ids[-1] == b.EOT:
        out.append(nota("O modelo escolheu &lt;|endoftext|&gt;: a geração para aqui. "
                         "Use «Recomeçar» para voltar ao prompt.", "lw-fim"))
        return "".join(out), c, ["anexar"], {"anexar": "Anexar: a geração terminou (&lt;|endoftext|&gt;)"}
    cache, z, novas = _logits(inst, ids)
    escolhido, det = b.escolher(z, T, k, top_p, u)
    p1 = b.softmax(z)
    mantidos = det["mantidos"]
    q = dict(zip(mantidos, det["q"]))
    acum = dict(zip(mantidos, det["acumuladas"]))
    itens = []
    for i in b.ranking(det["p"]):
        cls = "lw-escolhido" if i == escolhido else ("lw-mantido" if i in q else "lw-cortado")
        itens.append((tok(i), det["p"][i],
                      [num(det["p"][i]), num(q[i]) if i in q else "cortado",
                       num(acum[i]) if i in acum else ""], cls))
    cfg = [f"T = {eco(T)}", "top-k desligado" if k is None else f"top-k = {inteiro(k)}",
           "top-p desligado" if top_p is None else f"top-p = {eco(top_p)}",
           "guloso (sem u)" if u is None else f"u = {eco(u)}"]
    out.append(nota(" · ".join(cfg), "lw-config"))
    out.append(barras(itens, ["token", "p com T", f"p (T = {eco(T)})", "q", "acumulada"]))
    if u is None:
        como = "guloso: fica o mais provável entre os mantidos"
    else:
        como = f"u = {eco(u)} cai no primeiro token cuja acumulada passa de u"
    out.append(nota(f"Ficam {inteiro(len(mantidos))} de {inteiro(b.V)}; {como}. Escolhido: "
                     f"<strong>{escapa(tok(escolhido))}</strong> (p = {num(det['p'][escolhido])} com T = "
                     f"{eco(T)}; {num(p1[escolhido])} com T = 1).", "lw-resultado"))
    if novas == 0:
        cache_txt = "nenhuma linha nova: só a escolha mudou, os logits são os mesmos"
    elif novas == 1 and len(ids) > 1:
        cache_txt = (f"1 linha nova (a do último token); K e V das "
                     f"{contagem(len(ids) - 1, 'posição', 'posições')} anteriores vieram do cache")
    else:
        cache_txt = f"{contagem(novas, 'linha')}, o prompt inteiro, uma vez só"
    out.append(nota(f"Cache de KV: esta rodada calculou {cache_txt}. Guardadas: K e V de "
                     f"{contagem(len(cache.ids), 'posição', 'posições')}; linhas calculadas desde o início: "
                     f"{inteiro(cache.linhas_calculadas)}.", "lw-cache"))
    rotulos = {}
    if len(ids) >= b.n_ctx:
        out.append(nota(f"O brinquedo conhece só {contagem(b.n_ctx, 'posição', 'posições')} (n_ctx, as linhas "
                         "de P): não dá para anexar mais.", "lw-fim"))
        rotulos["anexar"] = f"Anexar: cheio (n_ctx = {b.n_ctx} posições)"
    if escolhido == b.EOT:
        out.append(nota("O escolhido é &lt;|endoftext|&gt;: anexado, ele encerra a geração.", "lw-fim"))
    return "".join(out), c, (["anexar"] if fim else []), rotulos


REGISTRO = {
    "saida": (_saida_padrao, _saida_form, _saida),
    "proximo": (_prox_padrao, _prox_form, _proximo),
}
