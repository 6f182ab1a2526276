import numpy as np

def softmax(x):
    """
    Softmax 函数：把一组数字转换为概率分布。
    先减去最大值（防止数值溢出），再做指数归一化。
    """
    # axis=-1 表示沿最后一个维度做 softmax（对每行做归一化）
    e_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e_x / e_x.sum(axis=-1, keepdims=True)


def scaled_dot_product_attention(Q, K, V):
    """
    缩放点积注意力（Scaled Dot-Product Attention）

    参数：
        Q: Query 矩阵，形状 (序列长度, d_k)
        K: Key 矩阵，形状 (序列长度, d_k)
        V: Value 矩阵，形状 (序列长度, d_v)

    返回：
        output: 注意力输出，形状 (序列长度, d_v)
        attention_weights: 注意力权重矩阵，用于可视化
    """
    d_k = Q.shape[-1]  # Key 向量的维度

    # 步骤 1：计算 Q 和 K 的点积
    # (seq_len, d_k) × (d_k, seq_len) → (seq_len, seq_len)
    # 结果矩阵的 [i][j] 表示第 i 个词对第 j 个词的原始相似度分数
    scores = np.matmul(Q, K.T)

    # 步骤 2：缩放——除以 √d_k，防止点积过大导致梯度消失
    scores = scores / np.sqrt(d_k)

    # 步骤 3：Softmax——把分数转换为注意力权重（每行加和=1）
    attention_weights = softmax(scores)

    # 步骤 4：用注意力权重对 Value 矩阵加权求和
    # (seq_len, seq_len) × (seq_len, d_v) → (seq_len, d_v)
    output = np.matmul(attention_weights, V)

    return output, attention_weights


# ---- 示例演示 ----
# 假设句子有 4 个词，每个词的向量维度是 8

np.random.seed(42)
seq_len = 4   # 序列长度（词的数量）
d_model = 8  # 词向量维度
d_k = 4       # Q 和 K 的投影维度

# 模拟输入词向量（实际来自词嵌入层）
X = np.random.randn(seq_len, d_model)

# 三个可训练的投影矩阵（实际通过梯度下降学习，这里随机初始化）
W_Q = np.random.randn(d_model, d_k)
W_K = np.random.randn(d_model, d_k)
W_V = np.random.randn(d_model, d_k)

# 计算 Q、K、V 矩阵
Q = X @ W_Q   # (4, 8) × (8, 4) → (4, 4)
K = X @ W_K
V = X @ W_V

# 执行注意力计算
output, weights = scaled_dot_product_attention(Q, K, V)

print("输入序列形状:", X.shape)          # (4, 8)
print("Q/K/V 形状:", Q.shape)            # (4, 4)
print("注意力权重矩阵:\n", np.round(weights, 3))
# 每行代表一个词对所有词的注意力分布，每行加和等于 1
print("输出形状:", output.shape)         # (4, 4)

# 验证：注意力权重每行加和 = 1
print("每行权重之和:", weights.sum(axis=1))  # 全部约等于 1.0
