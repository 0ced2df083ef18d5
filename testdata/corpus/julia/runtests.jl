using Test
using Random

include("kmeans.jl")
using .KMeans

# Two groups of three points, far apart: columns are points.
const POINTS = [1.0 1.1 0.9 8.0 8.2 7.9;
                1.0 0.9 1.2 8.0 7.8 8.1]

@testset "KMeans" begin
    @testset "assign picks the nearest center" begin
        centers = [1.0 8.0; 1.0 8.0]
        @test assign(POINTS, centers) == [1, 1, 1, 2, 2, 2]
    end

    @testset "two clear groups converge" begin
        c = kmeans(POINTS, 2; rng = MersenneTwister(7))
        @test c.converged
        @test length(c) == 2
        @test length(unique(c.assignments[1:3])) == 1
    end

    @testset "k larger than the data" begin
        @test_throws ArgumentError kmeans(POINTS, 7)
    end
end
