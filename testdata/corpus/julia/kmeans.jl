"""
    KMeans

Lloyd's k-means with k-means++ seeding, on the columns of a matrix.
"""
module KMeans

using LinearAlgebra
using Random

export Clustering, kmeans, assign

abstract type AbstractClustering end

struct Clustering{T<:AbstractFloat} <: AbstractClustering
    centers::Matrix{T}
    assignments::Vector{Int}
    iterations::Int
    converged::Bool
end

mutable struct Progress
    iteration::Int
    moved::Int
end

const DEFAULT_TOL = 1e-6

sqdist(a::AbstractVector, b::AbstractVector) = sum(abs2, a .- b)

function seed_centers(rng::AbstractRNG, X::AbstractMatrix{T}, k::Int) where {T}
    n = size(X, 2)
    centers = similar(X, size(X, 1), k)
    centers[:, 1] = X[:, rand(rng, 1:n)]
    dists = fill(T(Inf), n)
    for j in 2:k
        for i in 1:n
            dists[i] = min(dists[i], sqdist(view(X, :, i), view(centers, :, j - 1)))
        end
        r = rand(rng) * sum(dists)
        idx = findfirst(c -> c >= r, cumsum(dists))
        centers[:, j] = X[:, something(idx, n)]
    end
    return centers
end

function assign(X::AbstractMatrix, centers::AbstractMatrix)
    n, k = size(X, 2), size(centers, 2)
    labels = Vector{Int}(undef, n)
    for i in 1:n
        best, label = Inf, 0
        for j in 1:k
            d = sqdist(view(X, :, i), view(centers, :, j))
            if d < best
                best, label = d, j
            end
        end
        labels[i] = label
    end
    return labels
end

function update!(centers::AbstractMatrix, X::AbstractMatrix, labels::Vector{Int})
    fill!(centers, 0)
    counts = zeros(Int, size(centers, 2))
    for (i, label) in enumerate(labels)
        centers[:, label] .+= view(X, :, i)
        counts[label] += 1
    end
    for j in axes(centers, 2)
        counts[j] > 0 && (centers[:, j] ./= counts[j])
    end
    return centers
end

function kmeans(X::AbstractMatrix{T}, k::Int; maxiter::Int=100, tol=DEFAULT_TOL,
                rng::AbstractRNG=Random.default_rng()) where {T<:AbstractFloat}
    k <= size(X, 2) || throw(ArgumentError("k = $k exceeds the number of points"))
    centers = seed_centers(rng, X, k)
    labels = assign(X, centers)
    progress = Progress(0, typemax(Int))
    while progress.iteration < maxiter
        progress.iteration += 1
        old = copy(centers)
        update!(centers, X, labels)
        new_labels = assign(X, centers)
        progress.moved = count(new_labels .!= labels)
        labels = new_labels
        if progress.moved == 0 || norm(centers - old) < tol
            return Clustering(centers, labels, progress.iteration, true)
        end
    end
    return Clustering(centers, labels, progress.iteration, false)
end

Base.length(c::Clustering) = size(c.centers, 2)

end # module
