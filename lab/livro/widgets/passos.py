"""Os widgets dos passos 1 a 5: tokens, embeddings, LN e Q/K/V, máscaras, o bloco."""
import functools
import math

from livro import brinquedo as b
from livro.formato import (
    casas_min,
    contagem,
    num,
    vetor,
)
from livro.widgets.campos import (
    ErroEntrada,
    casas_exatas,
    ligado,
    ler_inteiro,
    ler_num,
    ler_texto,
)
from livro.widgets.html import (
    botao,
    campo_lista,
    campo_marca,
    campo_texto,
    escapa,
    linha,
    nota,
    oculto,
    radios,
    subscrito,
    tok,
    formata,
    matriz,
)

# ---------------------------------------------------------------------------
# O prompt do livro, calculado uma vez
# ---------------------------------------------------------------------------
_CACHE = {}


def modelo_prompt(com_atencao=True, causal=True):
    chave = ("modelo", com_atencao, causal)
    if chave not in _CACHE:
        _CACHE[chave] = b.modelo(b.IDS_PROMPT, com_atencao, causal)
    return _CACHE[chave]


_TOKENS_PROMPT = [tok(i) for i in b.IDS_PROMPT]


# ---------------------------------------------------------------------------
# Passo 1: tokens
# ---------------------------------------------------------------------------
def _tokens_padrao():
    return {"texto": b.PROMPT}


def _tokens_form(c):
    return linha(
        f'<label class="lw-campo lw-largo"><span>Frase</span><input type="text" name="texto" '
        f'value="{escapa(c["texto"])}" autocomplete="off" spellcheck="false" disabled></label>',
        botao("Tokenizar"))


MAX_CHIPS = 40       # tokens mostrados como fichas; o resto é contado numa nota
MAX_TEXTO = 300      # caracteres do texto decodificado mostrados


def corta(texto, n=MAX_TEXTO):
    return texto if len(texto) <= n else texto[:n] + "…"


def nota_eot(ids, onde):
    """A nota que explica o <|endoftext|> quando ele aparece na entrada."""
    if b.EOT not in ids:
        return ""
    return nota(f"{onde} tem &lt;|endoftext|&gt; (id {b.EOT}), o token que marca o fim de um texto: "
                 "<code>decodificar</code> não o escreve. O brinquedo o lê como qualquer outro token; "
                 "no GPT-2, o que vem depois dele é lido como o começo de um texto novo.", "lw-aviso")


def _tokens(c, acao, inst):
    texto = ler_texto(c.get("texto", ""))
    toks = b.tokenizar(texto)
    ids = b.codificar(texto)
    n = len(ids)
    chips = "".join(f'<li class="lw-token"><span class="lw-token-texto">{escapa(t)}</span>'
                    f'<span class="lw-token-id">{i}</span></li>' for t, i in zip(toks[:MAX_CHIPS], ids))
    mostra = ", ".join(str(i) for i in ids[:MAX_CHIPS]) + (", …" if n > MAX_CHIPS else "")
    out = [f'<ol class="lw-tokens" aria-label="tokens e ids">{chips}</ol>']
    if n > MAX_CHIPS:
        out.append(nota(f"A frase tem {contagem(n, 'token')}: aqui aparecem só os {contagem(MAX_CHIPS, 'primeiro')}.",
                         "lw-aviso"))
    out += [nota(f"ids = [{mostra}] · {contagem(n, 'token')}"),
            nota(f"De volta ao texto: <code>decodificar(ids)</code> = «{escapa(corta(b.decodificar(ids)))}»"),
            nota_eot(ids, "A frase")]
    if n > b.n_ctx:
        out.append(nota(f"São {contagem(n, 'token')}, e o brinquedo conhece só {contagem(b.n_ctx, 'posição', 'posições')} "
                         "(n_ctx): o modelo não leria o resto.", "lw-aviso"))
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# Passo 2: embeddings
# ---------------------------------------------------------------------------
def _emb_padrao():
    return {"token": str(b.IDS_PROMPT[-1]), "posicao": str(len(b.IDS_PROMPT))}


def _emb_form(c):
    return linha(
        campo_lista("token", "Token", [(i, f"{t} (id {i})") for i, t in enumerate(b.VOCAB)], c["token"]),
        campo_lista("posicao", "Posição", [(p, str(p)) for p in range(1, b.n_ctx + 1)], c["posicao"]))


def _embeddings(c, acao, inst):
    t = ler_inteiro(c.get("token"), "o token", 0, b.V - 1)
    pos = ler_inteiro(c.get("posicao"), "a posição", 1, b.n_ctx)
    e, p = b.E[t], b.P[pos - 1]
    x = b.soma(e, p)                        # (d,)
    k = casas_exatas(e + p + x)
    tab = matriz([e, p, x], k,
                 linhas=[f"E[{tok(t)}] (id {t})", f"P[{pos}] (posição {pos})", "x = E + P"],
                 cols=[str(j) for j in range(1, b.d + 1)], foco=2)
    out = [tab, nota(f"x = {vetor(e, k)} + {vetor(p, k)} = <strong>{vetor(x, k)}</strong>")]
    if pos <= len(b.IDS_PROMPT):
        if b.IDS_PROMPT[pos - 1] == t:
            out.append(nota(f"É a linha {pos} de X na frase «{escapa(b.PROMPT)}»."))
        else:
            out.append(nota(f"Na frase «{escapa(b.PROMPT)}», a posição {pos} tem "
                             f"{escapa(tok(b.IDS_PROMPT[pos - 1]))}; o mesmo token em outra posição "
                             "ganha outro x."))
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# Passo 3: LN e Q, K, V
# ---------------------------------------------------------------------------
def _qkv_padrao():
    n = len(b.IDS_PROMPT)
    x = modelo_prompt()["X"][n - 1]
    return {"linha": str(n), **{f"x{j + 1}": casas_min(v) for j, v in enumerate(x)}}


def _qkv_form(c):
    ops = [(i + 1, f"{i + 1}: {t}") for i, t in enumerate(_TOKENS_PROMPT)]
    return (linha(campo_lista("linha", "Linha de X", ops, c["linha"], acao="linha"))
            + linha(*[campo_texto(f"x{j}", f"x{subscrito(j)}", c[f"x{j}"], 5) for j in range(1, b.d + 1)],
                     botao("Calcular")))


def _qkv(c, acao, inst):
    if acao == "linha":
        i = ler_inteiro(c.get("linha"), "a linha", 1, len(b.IDS_PROMPT))
        c = dict(c, **{f"x{j + 1}": casas_min(v) for j, v in enumerate(modelo_prompt()["X"][i - 1])})
    x = [ler_num(c.get(f"x{j}"), f"x{subscrito(j)}") for j in range(1, b.d + 1)]
    mu, raiz = b.media(x), b.desvio(x)                               # raiz = √(σ² + ε)
    u = b.ln_linha(x)                                                # (d,)
    q, k, v = (b.matmul([u], W)[0] for W in (b.W_Q, b.W_K, b.W_V))    # (d,) cada
    cab = [[b.cabeca([m], h)[0] for m in (q, k, v)] for h in range(b.n_cabecas)]
    linhas = []
    for nome, i in (("q = u W_Q", 0), ("k = u W_K", 1), ("v = u W_V", 2)):
        linhas.append(f'<tr><th scope="row">{nome}</th>'
                      + "".join(f"<td>{vetor(cab[h][i])}</td>" for h in range(b.n_cabecas)) + "</tr>")
    cols = "".join(f'<th scope="col">cabeça {h + 1} (colunas {h * b.d_h + 1} e {(h + 1) * b.d_h})</th>'
                   for h in range(b.n_cabecas))
    out = [nota(f"μ = {num(mu)} · √(σ² + ε) = {num(raiz)} → u = LN(x) = (x − μ) / √(σ² + ε) = "
                 f"<strong>{vetor(u)}</strong>"),
           f'<table class="lw-matriz lw-qkv"><thead><tr><td></td>{cols}</tr></thead>'
           f'<tbody>{"".join(linhas)}</tbody></table>',
           nota(f"u tem média {num(b.media(u))} e variância {num(sum(a * a for a in u) / len(u))}: "
                 "a LN tira da linha o centro e a escala, e fica só o formato.")]
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# Passo 4: máscaras e cabeças
# ---------------------------------------------------------------------------
def _masc_padrao():
    return {"causal": True, "cabeca": "1"}


def _masc_form(c):
    return linha(campo_marca("causal", "Máscara causal", ligado(c["causal"])),
                  radios("cabeca", "Cabeça", [("1", "cabeça 1"), ("2", "cabeça 2")], c["cabeca"]))


def _mascaras(c, acao, inst):
    causal = ligado(c.get("causal"))
    h = ler_inteiro(c.get("cabeca"), "a cabeça", 1, b.n_cabecas) - 1
    r = modelo_prompt(True, causal)
    S, A = r["S"][h], r["A"][h]
    rot = [f"{i + 1} {t}" for i, t in enumerate(_TOKENS_PROMPT)]
    n = len(A)
    ult = A[-1]
    alvo = max(range(n), key=lambda j: ult[j])
    out = ['<div class="lw-lado">',
           matriz(S, 3, rot, rot, legenda="S + M (escores Q Kᵀ / √d_h com a máscara)" if causal
                  else "S = Q Kᵀ / √d_h (escores, sem máscara)"),
           matriz(A, 3, rot, rot, calor=True, foco=n - 1,
                  legenda=f"A = softmax({'S + M' if causal else 'S'}) (pesos; cada linha soma 1)"),
           "</div>",
           nota(f"Na cabeça {h + 1}, o último token ({escapa(_TOKENS_PROMPT[-1])}) põe {num(ult[alvo])} "
                 f"do seu peso em {escapa(_TOKENS_PROMPT[alvo])} (posição {alvo + 1}).")]
    if causal:
        out.append(nota("Acima da diagonal, −∞ nos escores vira peso 0: nenhum token olha para a frente."))
    else:
        futuro = sum(A[0][1:])
        out.append(nota(f"Sem a máscara, o primeiro token já põe {num(futuro)} do peso em tokens que vêm "
                         "depois dele: na geração, esses tokens ainda não existem.", "lw-aviso"))
    return "".join(out), c, []


# ---------------------------------------------------------------------------
# Passo 5: o bloco, linha a linha (o mini-brinquedo: uma cabeça, 3 tokens, d = 4)
# ---------------------------------------------------------------------------
N_MINI = len(b.MINI_X)
NOVA_LINHA_3 = [2, -1, 0, 1]  # o caso "só o último token muda": outro x para o token 3
CASOS_BLOCO = {
    "base": (b.MINI_X, True),
    "linha2x10": ([b.MINI_X[0], [10 * v for v in b.MINI_X[1]], b.MINI_X[2]], True),
    "ultimo": ([b.MINI_X[0], b.MINI_X[1], NOVA_LINHA_3], True),
    "sem_atencao": (b.MINI_X, False),
}
PASSOS_BLOCO = ["u", "qkv", "S", "A", "a", "h", "u2", "m", "y"]


def _grade(x):
    return {f"x{i + 1}{j + 1}": casas_min(v) for i, linha in enumerate(x) for j, v in enumerate(linha)}


def _bloco_padrao():
    return {**_grade(b.MINI_X), "com_atencao": True, "passo": "1", "caso": "base"}


def _bloco_form(c):
    grade = ['<table class="lw-grade"><caption>x (3 tokens × 4 números): edite à vontade</caption>'
             '<thead><tr><td></td>'
             + "".join(f'<th scope="col">{j}</th>' for j in range(1, b.d + 1)) + "</tr></thead><tbody>"]
    for i in range(1, N_MINI + 1):
        grade.append(f'<tr><th scope="row">token {i}</th>')
        for j in range(1, b.d + 1):
            grade.append(f'<td><input type="text" name="x{i}{j}" value="{escapa(c[f"x{i}{j}"])}" size="4" '
                         f'inputmode="decimal" autocomplete="off" aria-label="x linha {i}, coluna {j}" '
                         f"disabled></td>")
        grade.append("</tr>")
    grade.append("</tbody></table>")
    return ("".join(grade)
            + linha(botao("◀ Voltar", "voltar"), botao("Avançar ▶", "avancar", True),
                     botao("Mostrar tudo", "tudo"), botao("Recomeçar", "recomecar"),
                     campo_marca("com_atencao", "com atenção", ligado(c["com_atencao"])))
            + linha(botao("Caso base", "caso:base"), botao("Linha 2 × 10", "caso:linha2x10"),
                     botao("Só o último token muda", "caso:ultimo"), botao("Sem atenção", "caso:sem_atencao"),
                     classe="lw-controles lw-casos")
            + oculto("passo", c["passo"]) + oculto("caso", c["caso"]))


def _mudou(T1, T2):
    """Células (já formatadas) que mudaram, como o leitor as vê."""
    return {(i, j) for i, (l1, l2) in enumerate(zip(T1, T2)) for j, (p, q) in enumerate(zip(l1, l2)) if p != q}


MATRIZES_BLOCO = ("u", "Q", "K", "V", "S", "A", "a", "h", "u2", "m", "y")


def _base_bloco():
    """O caso base do mini-bloco e suas células formatadas (calculados uma vez)."""
    if "bloco_base" not in _CACHE:
        base = b.mini_bloco(None, True)
        _CACHE["bloco_base"] = (base, {k: formata(base[k]) for k in MATRIZES_BLOCO})
    return _CACHE["bloco_base"]


def _dif_max(M1, M2, linhas=None):
    linhas = range(len(M1)) if linhas is None else linhas
    return max(abs(p - q) for i in linhas for p, q in zip(M1[i], M2[i]) if p != -math.inf and q != -math.inf)


# As matrizes e as legendas de uma grade x (com ou sem atenção), guardadas para as últimas
# MAX_PECAS_BLOCO grades: avançar e voltar só mudam a linha em destaque, e refazer as contas e o
# HTML a cada clique era quase todo o tempo da resposta. A chave é o texto exato de cada número
# (repr separa -0.0 de 0.0, e float(repr(v)) == v).
MAX_PECAS_BLOCO = 16


def _bloco_pecas(x, com):
    """(resultado de b.mini_bloco, {etapa: (título, HTML, legenda)}) para a grade x."""
    return _bloco_pecas_do_texto(tuple(tuple(repr(v) for v in linha) for linha in x), com)


@functools.lru_cache(maxsize=MAX_PECAS_BLOCO)
def _bloco_pecas_do_texto(x_txt, com):
    x = [[float(v) for v in linha] for linha in x_txt]
    r = b.mini_bloco(x, com)
    base, base_txt = _base_bloco()
    r_txt = {k: formata(r[k]) for k in MATRIZES_BLOCO}
    i3 = N_MINI - 1  # o token 3, a linha das legendas
    ver = lambda M: vetor(M[i3])
    rot = [f"token {i}" for i in range(1, N_MINI + 1)]
    cols = [str(j) for j in range(1, b.d + 1)]

    def mat(nome, **kw):
        return matriz(r[nome], 3, rot, cols if nome not in ("S", "A") else rot, foco=i3,
                      mudou=_mudou(r_txt[nome], base_txt[nome]), txt=r_txt[nome], **kw)

    mu3, s3 = b.media(x[i3]), b.desvio(x[i3])
    A3 = r["A"][i3]
    olha = max(range(N_MINI), key=lambda j: A3[j])
    legendas = {
        "u": ("u = LN(x)", mat("u"),
              f"u{subscrito(3)} = (x{subscrito(3)} − μ) / √(σ² + ε), com μ = {num(mu3)} e √(σ² + ε) = {num(s3)}: "
              f"u{subscrito(3)} = {ver(r['u'])}"),
        "qkv": ("Q = u W_Q, K = u W_K, V = u W_V",
                '<div class="lw-lado">' + mat("Q", legenda="Q") + mat("K", legenda="K") + mat("V", legenda="V")
                + "</div>",
                f"q{subscrito(3)} = {ver(r['Q'])} (aqui W_Q = I), k{subscrito(3)} = {ver(r['K'])}, "
                f"v{subscrito(3)} = {ver(r['V'])} (W_V = I)"),
        "S": ("S + M: Q Kᵀ / √d com a máscara (d = 4 aqui: uma cabeça só)", mat("S"),
              f"S{subscrito(3)} = q{subscrito(3)} · [k₁; k₂; k₃] / {casas_min(math.sqrt(b.d))} = {vetor(r['S'][i3])}; "
              "nas linhas 1 e 2, a máscara põe −∞ depois da diagonal"),
        "A": ("A = softmax(S + M), linha a linha", mat("A", calor=True),
              f"A{subscrito(3)} = softmax(S{subscrito(3)}) = <strong>{vetor(A3)}</strong>: "
              f"o token 3 olha mais para o token {olha + 1}"),
        "a": ("a = (A V) W_O", mat("a"),
              (f"a{subscrito(3)} = ({vetor(A3)} · V) W_O = {ver(r['a'])}" if com
               else "sem atenção: a = 0 em todas as linhas")),
        "h": ("h = x + a", mat("h"),
              f"h{subscrito(3)} = x{subscrito(3)} + a{subscrito(3)} = {vetor(x[i3])} + {ver(r['a'])} = {ver(r['h'])}"),
        "u2": ("u' = LN(h)", mat("u2"),
               f"u'{subscrito(3)} = LN(h{subscrito(3)}) = {ver(r['u2'])}"),
        "m": ("m = GELUₜₐₙₕ(u' W₁) W₂", mat("m"),
              f"m{subscrito(3)} = GELUₜₐₙₕ(u'{subscrito(3)}) + GELUₜₐₙₕ(−u'{subscrito(3)}) = {ver(r['m'])} "
              "(com W₁ = [I | −I] e W₂ = [I ; I])"),
        "y": ("y = h + m", mat("y"),
              f"y{subscrito(3)} = h{subscrito(3)} + m{subscrito(3)} = {ver(r['y'])}; "
              f"o primeiro número, <strong>y{subscrito(31)} = {num(r['y'][i3][0])}</strong>"),
    }
    return r, legendas


def _bloco(c, acao, inst):
    total = len(PASSOS_BLOCO)
    # «Recomeçar» volta sempre ao estado inicial (a grade, a marca, o caso e a linha 1), mesmo de
    # uma grade com letras ou de um passo impossível: o widget nunca fica preso num erro.
    if acao == "recomecar":
        c, acao = _bloco_padrao(), None
    c = dict(c)
    if acao == "tudo":
        passo = total
    elif acao and acao.startswith("caso:"):
        nome = acao[5:]
        if nome not in CASOS_BLOCO:
            raise ErroEntrada(f"Caso desconhecido: {nome}.")
        x_caso, at_caso = CASOS_BLOCO[nome]
        c.update(_grade(x_caso), com_atencao=at_caso, caso=nome)
        passo = total
    else:
        passo = ler_inteiro(c.get("passo") or "1", "o passo", 1, total)
        if acao == "avancar":
            passo = min(total, passo + 1)
        elif acao == "voltar":
            passo = max(1, passo - 1)
    c["passo"] = str(passo)
    x = [[ler_num(c.get(f"x{i}{j}"), f"x{subscrito(i)}{subscrito(j)} (linha {i}, coluna {j})")
          for j in range(1, b.d + 1)] for i in range(1, N_MINI + 1)]
    com = ligado(c.get("com_atencao"))
    # O caso só vale enquanto a grade e a marca forem as dele.
    caso = c.get("caso") or ""
    if caso in CASOS_BLOCO:
        xc, ac = CASOS_BLOCO[caso]
        if _grade(xc) != _grade(x) or ac != com:
            caso = ""
    else:
        caso = ""
    c["caso"] = caso
    r, legendas = _bloco_pecas(x, com)
    base, _ = _base_bloco()
    out = ['<ol class="lw-passos">']
    for k, chave in enumerate(PASSOS_BLOCO, start=1):
        titulo, corpo, leg = legendas[chave]
        cls = "lw-passo" + (" lw-futura" if k > passo else "") + (" lw-atual" if k == passo else "")
        out.append(f'<li class="{cls}" data-passo="{k}"><p class="lw-passo-titulo">{titulo}</p>{corpo}'
                   f'<p class="lw-legenda">{leg}</p></li>')
    out.append("</ol>")
    out.append(nota(f"Linha {passo} de {total}" + (" (fim do bloco)" if passo == total else ""),
                     "lw-progresso"))
    notas = []
    if caso == "linha2x10":
        d_u = _dif_max(r["u"], base["u"], [1])
        notas.append(f"A linha 2 de x foi multiplicada por 10. A linha 2 de u = LN(x) quase não mudou "
                     f"(maior diferença: {num(d_u)}): a LN apaga a escala. O tamanho segue só pelo "
                     f"residual: h{subscrito(2)} foi de {vetor(base['h'][1])} para {vetor(r['h'][1])}.")
    elif caso == "ultimo":
        d_12 = max(_dif_max(r[m], base[m], [0, 1]) for m in ("u", "Q", "K", "V", "S", "A", "a", "h", "m", "y"))
        notas.append(f"Só a linha 3 de x mudou. Nas linhas 1 e 2, nenhuma etapa se mexeu (maior "
                     f"diferença: {num(d_12)}): pela máscara causal, um token não vê os que vêm depois.")
    elif caso == "sem_atencao":
        d_hx = _dif_max(r["h"], x)
        notas.append(f"Sem atenção, a = 0 e h = x (maior diferença: {num(d_hx)}): cada linha segue "
                     "sozinha, sem olhar para as outras.")
    if caso != "base":
        notas.append("Em destaque, as células que mudaram em relação ao caso base.")
    out.append("".join(nota(n, "lw-caso") for n in notas))
    # Um botão que não pode agir fica desligado: na linha 1 não há para onde voltar; na última,
    # nem avançar nem mostrar mais.
    return "".join(out), c, desligados_bloco(passo)


def desligados_bloco(passo):
    """As ações do bloco que não fazem nada na linha `passo` (de 1 a len(PASSOS_BLOCO))."""
    return (["voltar"] if passo <= 1 else []) + (["avancar", "tudo"] if passo >= len(PASSOS_BLOCO) else [])



REGISTRO = {
    "tokens": (_tokens_padrao, _tokens_form, _tokens),
    "embeddings": (_emb_padrao, _emb_form, _embeddings),
    "qkv": (_qkv_padrao, _qkv_form, _qkv),
    "mascaras": (_masc_padrao, _masc_form, _mascaras),
    "bloco": (_bloco_padrao, _bloco_form, _bloco),
}
