// Code that `nimbus codegen` wrote, checked in so that a test compiles it and uses it:
//
//     nimbus codegen Tests/NimbusTests/Fixtures/Posts.xcdatamodeld --output Tests/NimbusCodegenFixture/Class
//     nimbus codegen Tests/NimbusCodegenTests/Fixtures/Library.json --output Tests/NimbusCodegenFixture/Extension --style extension
//
// NimbusCodegenTests fails when these files differ from what the generator writes today.
